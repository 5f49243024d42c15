/**
 * The authorization decision a service took on a request, noted on the request for its access log
 * row. Fixed vocabularies (docs/admin.md, "Access log"): a request no check applied to has none.
 */
export type AuthzResult = 'allow' | 'deny';

export type AuthzReason =
  // allow: the credential that was accepted
  | 'access_token'
  | 'api_key'
  | 'client_secret'
  // the token endpoint: a public client named by its client_id (it has no secret; PKCE proves the flow)
  | 'public_client'
  // deny
  | 'missing_token'
  | 'invalid_token'
  | 'revoked_token'
  | 'insufficient_scope'
  | 'invalid_client'
  | 'missing_api_key'
  | 'invalid_api_key'
  | 'network_not_allowed'
  // the Marketplace edition's gateway: a request without a virtual key (answered 404)
  | 'not_in_edition';

export interface AuthzNote {
  result: AuthzResult;
  reason: AuthzReason;
  /** The tenant of the credential that was accepted, where the check knows it (the gateway's keys and tokens). */
  tenantId?: string;
}

const AUTHZ = Symbol.for('fed.observability.authz');

type Noted = { [AUTHZ]?: AuthzNote };

/** Records the decision on `req` (the last one noted wins: a later check refines an earlier one). */
export function noteAuthz(req: object, result: AuthzResult, reason: AuthzReason, tenantId?: string | null): void {
  (req as Noted)[AUTHZ] = tenantId ? { result, reason, tenantId } : { result, reason };
}

export function authzOf(req: object): AuthzNote | undefined {
  return (req as Noted)[AUTHZ];
}
