import { type ClientEntity, type TenantEntity } from '@fed/identity/internal';
import { type TokenIssuer } from '../token-issuer';
import { oauthErrors } from '../oauth-http';
import { type GrantRequest } from './grant-request';

/** The spec's client-credentials token response: no refresh token, and an ID token for the service account. */
export interface ClientCredentialsResponse {
  access_token: string;
  id_token?: string;
  expires_in: number;
  token_type: 'Bearer';
  scope: string;
}

/** No `scope`: all the client's scopes. `resource` (RFC 8707) binds `aud`; an unknown one is `invalid_target`. */
export function clientCredentialsGrant(issuer: TokenIssuer, resources: readonly string[]) {
  return async ({ client, params }: GrantRequest): Promise<ClientCredentialsResponse> => {
    const { resource } = params;
    if (resource !== undefined && !resources.includes(resource)) {
      throw oauthErrors.invalidTarget('resource is not a resource of this server');
    }
    const tenant = serviceAccountTenant(client);
    const requested = params.scope?.split(' ').filter(Boolean);
    const granted = requested ?? client.scopes;
    const refused = granted.find((scope) => !client.scopes.includes(scope));
    if (refused !== undefined) throw oauthErrors.invalidScope(`scope not allowed for this client: ${refused}`);

    const scope = [...new Set(granted)].join(' ');
    const tokens = await issuer.forServiceAccount({ ...client, tenant }, scope, resource);
    return {
      access_token: tokens.accessToken,
      id_token: tokens.idToken,
      expires_in: issuer.tokenTtlSeconds,
      token_type: 'Bearer',
      scope,
    };
  };
}

/** Null for the operator's integration; a disabled tenant gets no tokens (`unauthorized_client`). */
export function serviceAccountTenant(client: ClientEntity): TenantEntity | null {
  if (client.tenantId === null) return null;
  if (!client.tenant?.enabled) throw oauthErrors.unauthorizedClient("the client's tenant is disabled");
  return client.tenant;
}
