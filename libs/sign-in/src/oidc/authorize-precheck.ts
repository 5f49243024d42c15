import { ALWAYS_ALLOWED_SCOPES, scopes as supportedScopes } from '@fed/contracts';
import { type ClientEntity } from '@fed/identity/internal';

export interface AuthorizeRefusal {
  error:
    | 'invalid_request'
    | 'invalid_scope'
    | 'invalid_target'
    | 'access_denied'
    | 'unauthorized_client'
    | 'unsupported_response_type';
  description: string;
}

const known = new Set<string>([...supportedScopes, ...ALWAYS_ALLOWED_SCOPES]);

/**
 * The spec's authorization-request rules oidc-provider does not apply, checked once the client and its exact
 * `redirect_uri` are known so the error can be redirected.
 */
export function precheckAuthorization(
  client: ClientEntity,
  query: Record<string, unknown>,
  knownResources: readonly string[],
): AuthorizeRefusal | undefined {
  if (!client.enabled) return { error: 'access_denied', description: 'the application is disabled' };
  // The provider would answer other response types in the fragment; the spec's only mode is query.
  if (typeof query.response_type === 'string' && query.response_type !== '' && query.response_type !== 'code') {
    return { error: 'unsupported_response_type', description: 'response_type must be code' };
  }
  if (query.response_type !== 'code') return undefined; // missing or repeated: the provider's invalid_request
  if (!client.grantTypes.includes('authorization_code')) {
    return { error: 'unauthorized_client', description: 'this application may not use the authorization code flow' };
  }
  if (query.response_mode !== undefined && query.response_mode !== 'query') {
    return { error: 'invalid_request', description: 'response_mode must be query' };
  }
  const scope = query.scope;
  if (scope === undefined || scope === '') return { error: 'invalid_scope', description: 'scope is required' };
  if (typeof scope !== 'string') return undefined; // repeated: the provider answers invalid_request
  const requested = scope.split(' ').filter(Boolean);
  const unknown = requested.find((name) => !known.has(name));
  if (unknown !== undefined) return { error: 'invalid_scope', description: `unknown scope: ${unknown}` };
  const refused = requested.find((name) => !ALWAYS_ALLOWED_SCOPES.includes(name) && !client.scopes.includes(name));
  if (refused !== undefined) {
    return { error: 'invalid_scope', description: `scope not allowed for this application: ${refused}` };
  }
  const target = checkResource(query.resource, knownResources);
  if (target) return target;
  // OAuth 2.1 and the security BCP; a method other than S256 is the provider's invalid_request.
  if (client.requirePkce && (query.code_challenge === undefined || query.code_challenge === '')) {
    return { error: 'invalid_request', description: 'code_challenge is required (PKCE with S256)' };
  }
  return undefined;
}

/** RFC 8707 2: one value (repeats must be equal) naming a resource exactly, since it becomes the token's `aud`. */
function checkResource(resource: unknown, knownResources: readonly string[]): AuthorizeRefusal | undefined {
  if (resource === undefined) return undefined;
  const values = typeof resource === 'string' ? [resource] : Array.isArray(resource) ? [...new Set(resource)] : [];
  if (values.length !== 1 || typeof values[0] !== 'string') {
    return { error: 'invalid_target', description: 'resource must be given once, as one absolute URI' };
  }
  if (!knownResources.includes(values[0])) {
    return { error: 'invalid_target', description: 'resource is not a resource of this server' };
  }
  return undefined;
}
