import { type ClientRegistration, validateRegistration } from './client-registration';
import { ClientsError } from './clients.errors';

const base: ClientRegistration = {
  clientId: 'crm-app',
  name: 'CRM',
  grantTypes: ['authorization_code', 'refresh_token'],
  redirectUris: ['https://crm.example.com/callback'],
  scopes: ['openid', 'chat:exec'],
};

function codeOf(change: Partial<ClientRegistration>): string | undefined {
  try {
    validateRegistration({ ...base, ...change });
  } catch (error) {
    return error instanceof ClientsError ? error.code : 'not a ClientsError';
  }
  return undefined;
}

describe('client registration', () => {
  it('accepts a browser application and applies the defaults (Published, consent on, PKCE required)', () => {
    expect(validateRegistration(base)).toEqual({
      ...base,
      publicationStatus: 'Published',
      consentRequired: true,
      requirePkce: true,
      postLogoutRedirectUris: [],
      tokenEndpointAuthMethod: 'client_secret_basic',
    });
    expect(validateRegistration({ ...base, requirePkce: false }).requirePkce).toBe(false);
  });

  it('registers a public client (no secret) for the code flow only, with PKCE always', () => {
    expect(validateRegistration({ ...base, publicClient: true }).tokenEndpointAuthMethod).toBe('none');
    expect(codeOf({ publicClient: true, grantTypes: ['authorization_code', 'client_credentials'] })).toBe(
      'invalid_grant_types',
    );
    expect(codeOf({ publicClient: true, grantTypes: ['client_credentials'], redirectUris: [] })).toBe(
      'invalid_grant_types',
    );
    expect(codeOf({ publicClient: true, requirePkce: false })).toBe('invalid_pkce');
  });

  it('checks post-logout redirect URIs by the rules of redirect URIs', () => {
    const registered = validateRegistration({ ...base, postLogoutRedirectUris: ['https://crm.example.com/bye'] });
    expect(registered.postLogoutRedirectUris).toEqual(['https://crm.example.com/bye']);
    for (const uri of ['http://crm.example.com/bye', 'https://crm.example.com/bye#x', 'bye']) {
      expect(() => validateRegistration({ ...base, postLogoutRedirectUris: [uri] })).toThrow(
        /post-logout redirect URI/,
      );
    }
  });

  it('gives an application (authorization_code) a management scope only with allowManagementScopes, a system integration without', () => {
    for (const scope of ['users:read', 'users:manage', 'logs:read', 'master:manage', 'sharedmemory:query']) {
      expect(codeOf({ scopes: ['openid', 'chat:exec', scope] })).toBe('invalid_scope');
      expect(codeOf({ scopes: ['openid', scope], allowManagementScopes: true })).toBeUndefined();
      expect(codeOf({ grantTypes: ['client_credentials'], redirectUris: [], scopes: [scope] })).toBeUndefined();
    }
    // Checked, not stored: the registration that passes names no such field.
    expect(validateRegistration({ ...base, scopes: ['users:read'], allowManagementScopes: true })).not.toHaveProperty(
      'allowManagementScopes',
    );
  });

  it("gives platform:manage to a client_credentials client only as the platform operator's integration (no tenant), to an application only with allowManagementScopes", () => {
    const system = { grantTypes: ['client_credentials'], redirectUris: [], scopes: ['platform:manage'] };
    expect(codeOf({ ...system, operator: true })).toBeUndefined();
    expect(codeOf(system)).toBe('invalid_scope');
    expect(() => validateRegistration({ ...base, ...system })).toThrow(/a client of a tenant never holds it/);
    // An application that also has client_credentials would give its service account the scope in its tenant.
    expect(
      codeOf({
        grantTypes: ['authorization_code', 'client_credentials'],
        scopes: ['platform:manage'],
        allowManagementScopes: true,
      }),
    ).toBe('invalid_scope');
    expect(codeOf({ scopes: ['openid', 'platform:manage'] })).toBe('invalid_scope');
    expect(codeOf({ scopes: ['openid', 'platform:manage'], allowManagementScopes: true })).toBeUndefined();
  });

  it("lets only a client_credentials client be the platform operator's integration (no tenant): an application always belongs to a tenant", () => {
    const operator = { grantTypes: ['client_credentials'], redirectUris: [], scopes: ['logs:read'], operator: true };
    expect(codeOf(operator)).toBeUndefined();
    expect(codeOf({ ...operator, grantTypes: ['client_credentials', 'client_credentials'] })).toBeUndefined();
    for (const grantTypes of [['authorization_code'], ['authorization_code', 'refresh_token', 'client_credentials']]) {
      expect(codeOf({ ...operator, grantTypes, redirectUris: ['https://crm.example.com/callback'] })).toBe(
        'invalid_operator',
      );
    }
    expect(() => validateRegistration({ ...base, operator: true })).toThrow(
      /only a client_credentials client may be the platform operator's integration/,
    );
    // Checked, not stored: where the client belongs is the tenant the service records.
    expect(validateRegistration({ ...base, ...operator })).not.toHaveProperty('operator');
  });

  it('accepts a system integration with client credentials and no redirect URI', () => {
    const valid = validateRegistration({
      clientId: 'etl',
      name: 'ETL',
      grantTypes: ['client_credentials'],
      scopes: ['users:read'],
    });
    expect(valid.redirectUris).toEqual([]);
  });

  it('refuses client ids that are empty, too long or carry other characters', () => {
    for (const clientId of ['', 'a'.repeat(65), 'has space', '../etc', '-leading', 'ünï']) {
      expect(codeOf({ clientId })).toBe('invalid_client_id');
    }
  });

  it('refuses names that are empty, too long, or hold NUL, control characters or lone surrogates', () => {
    for (const name of ['  ', 'x'.repeat(201), 'a\u0000b', 'line\nbreak', 'bad\uD800']) {
      expect(codeOf({ name })).toBe('invalid_name');
    }
  });

  it('refuses unknown grant types, none at all, and refresh_token without authorization_code', () => {
    expect(codeOf({ grantTypes: ['password'] })).toBe('invalid_grant_types');
    expect(codeOf({ grantTypes: [] })).toBe('invalid_grant_types');
    expect(codeOf({ grantTypes: ['client_credentials', 'refresh_token'] })).toBe('invalid_grant_types');
  });

  it('requires a redirect URI for authorization_code, and only https or loopback http ones', () => {
    expect(codeOf({ redirectUris: [] })).toBe('invalid_redirect_uri');
    for (const uri of [
      'http://crm.example.com/cb',
      '/relative/cb',
      'javascript:alert(1)',
      'https://crm.example.com/cb#frag',
      'https://user:pass@crm.example.com/cb',
      'https://crm.example.com/\ncb',
    ]) {
      expect(codeOf({ redirectUris: [uri] })).toBe('invalid_redirect_uri');
    }
    expect(
      codeOf({ redirectUris: ['http://localhost:3000/cb', 'http://127.0.0.1/cb', 'http://[::1]:8080/cb'] }),
    ).toBeUndefined();
  });

  it('refuses scopes the spec does not define', () => {
    expect(codeOf({ scopes: ['openid', 'admin:all'] })).toBe('invalid_scope');
  });

  it('removes duplicate grants, redirect URIs and scopes', () => {
    const valid = validateRegistration({
      ...base,
      scopes: ['openid', 'openid'],
      grantTypes: ['authorization_code', 'authorization_code'],
    });
    expect(valid.scopes).toEqual(['openid']);
    expect(valid.grantTypes).toEqual(['authorization_code']);
  });
});
