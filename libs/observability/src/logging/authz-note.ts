/** Noted on the request for its access log row; fixed vocabularies (docs/admin.md, "Access log"). */
export type AuthzResult = 'allow' | 'deny';

export type AuthzReason =
  // allow: the credential that was accepted
  | 'access_token'
  | 'api_key'
  | 'client_secret'
  // a public client: no secret, PKCE proves the flow
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
  // the Marketplace edition's gateway without a virtual key (answered 404)
  | 'not_in_edition';

export interface AuthzNote {
  result: AuthzResult;
  reason: AuthzReason;
  /** Where the check knows it (the gateway's keys and tokens). */
  tenantId?: string;
}

const AUTHZ = Symbol.for('fed.observability.authz');

type Noted = { [AUTHZ]?: AuthzNote };

/** The last note wins: a later check refines an earlier one. */
export function noteAuthz(req: object, result: AuthzResult, reason: AuthzReason, tenantId?: string | null): void {
  (req as Noted)[AUTHZ] = tenantId ? { result, reason, tenantId } : { result, reason };
}

export function authzOf(req: object): AuthzNote | undefined {
  return (req as Noted)[AUTHZ];
}
