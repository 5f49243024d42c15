import { REVOKED_TOKEN, invalidToken } from './auth.errors';
import {
  type AcceptedResource,
  type ClaimRules,
  checkClaimsForAnyResource,
  checkTokenResource,
} from './access-token.claims';
import { type AccessTokenPrincipal, toPrincipal } from './access-token.principal';
import { parseCompactJws, verifyRs256 } from './compact-jws';
import { type JwksKeySet } from './jwks-key-set';
import { CurrentRoles } from './current-roles';
import { type RevocationList } from './revocation-list';
import { VerificationCache } from './verification-cache';

export type AccessTokenVerifierOptions = ClaimRules;

/**
 * Turns a compact access token into a principal or an `invalid_token` ApiError (401): RS256
 * signature by a key of the issuer's JWKS, the spec's claims, then the revocation list, which is
 * consulted on every call, cached or not.
 */
export class AccessTokenVerifier {
  constructor(
    private readonly options: AccessTokenVerifierOptions,
    private readonly keys: JwksKeySet,
    private readonly revocations: RevocationList,
    private readonly cache: VerificationCache = new VerificationCache(),
    /** The users' current roles; without one (a test's verifier) a token's own claim counts. */
    private readonly roles: CurrentRoles = new CurrentRoles({ clockSkewSeconds: 0, maxTokenAgeSeconds: 0 }),
  ) {}

  /**
   * Whether the user of a verified token is an admin now (a change of role applies from the next
   * call, in memory); a service account holds no user role and is not asked.
   */
  isAdminNow(principal: AccessTokenPrincipal): boolean {
    return this.roles.isAdmin(principal);
  }

  /**
   * `acceptedResource`: the resource URL (or URLs) the calling route serves; a token bound to another resource
   * is refused (checked on every call, so one cache entry serves every route).
   */
  async verify(token: string, acceptedResource?: AcceptedResource): Promise<AccessTokenPrincipal> {
    const now = Date.now();
    const principal = this.cache.get(token, now, this.keys.version) ?? (await this.verifyUncached(token));
    checkTokenResource(principal.resource, acceptedResource);
    if (this.revocations.isRevoked(principal)) throw invalidToken(REVOKED_TOKEN);
    return principal;
  }

  private async verifyUncached(token: string): Promise<AccessTokenPrincipal> {
    const keysVersion = this.keys.version;
    const jws = parseCompactJws(token);
    verifyRs256(jws, await this.keys.keyFor(jws.header.kid));
    const claims = checkClaimsForAnyResource(jws.payload, this.options, Date.now() / 1000);
    const principal = toPrincipal(claims);
    const { clockSkewSeconds, maxTokenAgeSeconds } = this.options;
    const validUntilSeconds = Math.min(claims.exp, claims.iat + maxTokenAgeSeconds) + clockSkewSeconds;
    // Verified against the key set as it was when the work started: if a key left meanwhile, the
    // entry is born stale and the next use verifies again.
    this.cache.set(token, principal, validUntilSeconds * 1000, keysVersion);
    return principal;
  }
}
