import { PLATFORM_SCOPE, isManagementScope, isPrintableLine, isScope } from '@fed/contracts';
import { type GrantType, type PublicationStatus, type TokenEndpointAuthMethod, grantTypes } from './client.entity';
import { ClientsError } from './clients.errors';

export interface ClientRegistration {
  clientId: string;
  name: string;
  grantTypes: readonly string[];
  redirectUris?: readonly string[];
  /** Where the sign-out page may redirect to (`post_logout_redirect_uri`); none by default. */
  postLogoutRedirectUris?: readonly string[];
  scopes?: readonly string[];
  publicationStatus?: PublicationStatus;
  consentRequired?: boolean;
  /** Default true; false only for a legacy confidential client that cannot send PKCE. */
  requirePkce?: boolean;
  /** Needed to give a code-flow application a management scope (held by its admin users). Checked, not stored. */
  allowManagementScopes?: boolean;
  /** The platform operator's own client_credentials integration: no tenant, so its tokens carry no `tenant` claim. */
  operator?: boolean;
  /**
   * A browser or native application that cannot keep a secret (RFC 6749 2.1, token_endpoint_auth_method `none`):
   * authorization_code (and refresh_token) only, PKCE always; it names itself by `client_id` alone.
   */
  publicClient?: boolean;
}

export interface ValidClientRegistration {
  clientId: string;
  name: string;
  grantTypes: GrantType[];
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  scopes: string[];
  publicationStatus: PublicationStatus;
  consentRequired: boolean;
  requirePkce: boolean;
  tokenEndpointAuthMethod: TokenEndpointAuthMethod;
}

const CLIENT_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const MAX_NAME = 200;
const MAX_REDIRECT_URIS = 20;
const MAX_URI_LENGTH = 2000;
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Checks a registration as hostile input; returns it normalized (deduplicated, defaults applied). */
export function validateRegistration(input: ClientRegistration): ValidClientRegistration {
  if (!CLIENT_ID.test(input.clientId)) {
    throw new ClientsError(
      'invalid_client_id',
      'client_id must be 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit',
    );
  }
  const name = input.name.trim();
  if (name.length === 0 || name.length > MAX_NAME || !isPrintableLine(name)) {
    throw new ClientsError('invalid_name', `name must be 1-${MAX_NAME} printable characters`);
  }
  const grants = unique(input.grantTypes);
  const unknownGrant = grants.find((g) => !(grantTypes as readonly string[]).includes(g));
  if (grants.length === 0 || unknownGrant !== undefined) {
    throw new ClientsError('invalid_grant_types', `grant types must be some of ${grantTypes.join(', ')}`);
  }
  if (grants.includes('refresh_token') && !grants.includes('authorization_code')) {
    throw new ClientsError(
      'invalid_grant_types',
      'refresh_token needs authorization_code (client credentials get no refresh token)',
    );
  }
  if (input.operator === true && !(grants.length === 1 && grants[0] === 'client_credentials')) {
    throw new ClientsError(
      'invalid_operator',
      "only a client_credentials client may be the platform operator's integration (no tenant): " +
        'an application (authorization_code) always belongs to a tenant, as its users do',
    );
  }
  if (input.publicClient === true) checkPublicClient(input, grants);
  const redirectUris = validRedirectUris(input.redirectUris ?? [], grants.includes('authorization_code'));
  const postLogoutRedirectUris = validPostLogoutRedirectUris(input.postLogoutRedirectUris ?? []);
  const scopes = unique(input.scopes ?? []);
  const unknownScope = scopes.find((scope) => !isScope(scope));
  if (unknownScope !== undefined) {
    throw new ClientsError('invalid_scope', `unknown scope ${JSON.stringify(unknownScope.slice(0, 64))}`);
  }
  // A service account's token carries its client's tenant: with this scope a tenant would hold the platform's power.
  if (scopes.includes(PLATFORM_SCOPE) && grants.includes('client_credentials') && input.operator !== true) {
    throw new ClientsError(
      'invalid_scope',
      `${PLATFORM_SCOPE} on a client_credentials client only for the platform operator's own integration ` +
        '(operator, --operator: no tenant); a client of a tenant never holds it',
    );
  }
  const management = scopes.filter(isManagementScope);
  if (grants.includes('authorization_code') && management.length > 0 && input.allowManagementScopes !== true) {
    throw new ClientsError(
      'invalid_scope',
      `${management.join(', ')} on an application (authorization_code) needs allowManagementScopes ` +
        '(--allow-management-scopes): management scopes are for system integrations (client_credentials); ' +
        "an application's users hold them only while their role is admin",
    );
  }
  return {
    clientId: input.clientId,
    name,
    grantTypes: grants as GrantType[],
    redirectUris,
    postLogoutRedirectUris,
    scopes,
    publicationStatus: input.publicationStatus ?? 'Published',
    consentRequired: input.consentRequired ?? true,
    requirePkce: input.requirePkce ?? true,
    tokenEndpointAuthMethod: input.publicClient === true ? 'none' : 'client_secret_basic',
  };
}

// Without a secret, a code is bound to its client only by PKCE, and a client-credentials token would be anyone's.
function checkPublicClient(input: ClientRegistration, grants: string[]): void {
  if (!grants.includes('authorization_code') || grants.includes('client_credentials')) {
    throw new ClientsError(
      'invalid_grant_types',
      'a public client (no secret) uses authorization_code, and refresh_token, only: client_credentials needs a secret',
    );
  }
  if (input.requirePkce === false) {
    throw new ClientsError('invalid_pkce', 'a public client (no secret) always requires PKCE');
  }
}

/** Absolute https URLs (http only on the loopback, RFC 8252), at most 20; also the rule for self-registered clients. */
export function validRedirectUris(uris: readonly string[], required: boolean): string[] {
  const valid = unique(uris);
  if (required && valid.length === 0) {
    throw new ClientsError('invalid_redirect_uri', 'authorization_code needs at least one redirect URI');
  }
  if (valid.length > MAX_REDIRECT_URIS) {
    throw new ClientsError('invalid_redirect_uri', `at most ${MAX_REDIRECT_URIS} redirect URIs`);
  }
  for (const uri of valid) checkRedirectUri(uri);
  return valid;
}

/** The sign-out page's redirects follow the same rules as the authorization redirects. */
export function validPostLogoutRedirectUris(uris: readonly string[]): string[] {
  const valid = unique(uris);
  if (valid.length > MAX_REDIRECT_URIS) {
    throw new ClientsError('invalid_redirect_uri', `at most ${MAX_REDIRECT_URIS} post-logout redirect URIs`);
  }
  for (const uri of valid) checkRedirectUri(uri, 'post-logout redirect URI');
  return valid;
}

// Redirects go only to exactly registered URIs, so each must be an absolute https URL (http only on the
// loopback) without fragment or credentials (RFC 6749 3.1.2).
function checkRedirectUri(uri: string, kind = 'redirect URI'): void {
  const refuse = (why: string): never => {
    throw new ClientsError('invalid_redirect_uri', `${kind} ${JSON.stringify(uri.slice(0, 200))} ${why}`);
  };
  if (uri.length > MAX_URI_LENGTH || !isPrintableLine(uri)) refuse('is too long or has control characters');
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return refuse('is not an absolute URL');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname))) {
    refuse('must use https (http only for localhost)');
  }
  if (url.hash || uri.includes('#')) refuse('must not have a fragment');
  if (url.username || url.password) refuse('must not carry credentials');
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}
