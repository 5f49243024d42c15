import { isManagementScope } from '@fed/contracts';
import { type AuthzReason, noteAuthz } from '@fed/observability';
import { REVOKED_TOKEN, adminRoleRequired, insufficientScope } from './auth.errors';
import { type AcceptedResource } from './access-token.claims';
import { type AccessTokenPrincipal } from './access-token.principal';
import { type AccessTokenVerifier } from './access-token.verifier';
import { bearerTokenFrom } from './bearer-token';

/** The part of a request authentication reads (Express's and a raw `IncomingMessage` alike). */
export interface AuthenticatedRequest {
  headers: { authorization?: string };
}

/** The bearer check of every protected route: the guard calls it for Nest routes, fast routes call it directly. */
export async function authenticateRequest(
  verifier: AccessTokenVerifier,
  request: AuthenticatedRequest,
  anyOf: readonly string[] | undefined,
  checkScopes = true,
  resource?: AcceptedResource,
): Promise<AccessTokenPrincipal> {
  const authorization = request.headers.authorization;
  let principal: AccessTokenPrincipal;
  try {
    principal = await verifier.verify(bearerTokenFrom(authorization), resource);
  } catch (error) {
    noteAuthz(request, 'deny', deniedTokenReason(authorization, error));
    throw error;
  }
  // A verified token names its caller's tenant, refused for its scope or not (the access log's row).
  const tenantId = principal.tenant?.id;
  if (checkScopes && anyOf) {
    const held = anyOf.filter((scope) => principal.scopes.has(scope));
    if (held.length === 0) {
      noteAuthz(request, 'deny', 'insufficient_scope', tenantId);
      throw insufficientScope(anyOf);
    }
    // A user's management scope counts only while the user is an admin, checked on every call.
    if (!principal.isServiceAccount && held.every(isManagementScope) && !verifier.isAdminNow(principal)) {
      noteAuthz(request, 'deny', 'insufficient_scope', tenantId);
      throw adminRoleRequired();
    }
  }
  noteAuthz(request, 'allow', 'access_token', tenantId);
  return principal;
}

function deniedTokenReason(authorization: string | undefined, error: unknown): AuthzReason {
  if (authorization === undefined || authorization === '') return 'missing_token';
  return error instanceof Error && error.message === REVOKED_TOKEN ? 'revoked_token' : 'invalid_token';
}
