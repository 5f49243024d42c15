import { ApiRequestError } from '../../lib/api';
import { clientFieldOf } from './api';

const refusal = (message: string, status = 400) => new ApiRequestError(status, 'invalid_parameter', message);

describe('clientFieldOf', () => {
  // The messages as the API words them (libs/identity/src/clients, the admin DTOs).
  it.each([
    ['redirect URI "http://crm.example.com/cb" must use https (http only for localhost)', 'redirectUris'],
    ['authorization_code needs at least one redirect URI', 'redirectUris'],
    ['grant types must be some of authorization_code, client_credentials, refresh_token', 'grantTypes'],
    [
      'a public client (no secret) uses authorization_code, and refresh_token, only: client_credentials needs a secret',
      'grantTypes',
    ],
    [
      "platform:manage on a client_credentials client only for the platform operator's own integration (operator, --operator: no tenant); a client of a tenant never holds it",
      'scopes',
    ],
    ['name must be 1-200 printable characters', 'name'],
    ['a public client (no secret) always requires PKCE', 'public'],
  ] as const)('%s: %s', (message, field) => {
    expect(clientFieldOf(refusal(message))).toBe(field);
  });

  it('puts a taken client id (409) at its field', () => {
    expect(clientFieldOf(new ApiRequestError(409, 'conflict', 'client crm already exists'))).toBe('clientId');
  });

  it('names no field for other statuses or errors', () => {
    expect(clientFieldOf(refusal('name must be 1-200 printable characters', 500))).toBeUndefined();
    expect(clientFieldOf(new Error('name must be 1-200 printable characters'))).toBeUndefined();
    expect(clientFieldOf(null)).toBeUndefined();
  });
});
