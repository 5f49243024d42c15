import { scopes as supportedScopes } from '@fed/contracts';
import { type ClientEntity } from '../clients/client.entity';

export interface AuthorizeRefusal {
  error: 'invalid_request' | 'invalid_scope' | 'access_denied' | 'unauthorized_client' | 'unsupported_response_type';
  description: string;
}

const known = new Set<string>(supportedScopes);

/**
 * The spec's authorization-request rules that oidc-provider does not apply itself, checked once the
 * client and its exactly registered `redirect_uri` are known (so the error may be redirected):
 * a disabled client is `access_denied`; a response type other than `code` is answered in the query; `scope` is required, must include `openid` and may only
 * name scopes of the spec that the client was given; the only response mode is `query`; PKCE is required
 * unless the client was opted out.
 */
export function precheckAuthorization(
  client: ClientEntity,
  query: Record<string, unknown>,
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
  const refused = requested.find((name) => name !== 'openid' && !client.scopes.includes(name));
  if (refused !== undefined) {
    return { error: 'invalid_scope', description: `scope not allowed for this application: ${refused}` };
  }
  if (!requested.includes('openid')) return { error: 'invalid_scope', description: 'scope must include openid' };
  // OAuth 2.1 and the security BCP: every client proves it started the flow; a method other than S256
  // is the provider's invalid_request.
  if (client.requirePkce && (query.code_challenge === undefined || query.code_challenge === '')) {
    return { error: 'invalid_request', description: 'code_challenge is required (PKCE with S256)' };
  }
  return undefined;
}
