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

/** RS256 signature, spec claims, then the revocation list, which is consulted on every call, cached or not. */
export class AccessTokenVerifier {
  constructor(
    private readonly options: AccessTokenVerifierOptions,
    private readonly keys: JwksKeySet,
    private readonly revocations: RevocationList,
    private readonly cache: VerificationCache = new VerificationCache(),
    /** The users' current roles; without one (a test's verifier) a token's own claim counts. */
    private readonly roles: CurrentRoles = new CurrentRoles({ clockSkewSeconds: 0, maxTokenAgeSeconds: 0 }),
  ) {}

  /** A role change applies from the next call. */
  isAdminNow(principal: AccessTokenPrincipal): boolean {
    return this.roles.isAdmin(principal);
  }

  /** The resource is checked on every call, so one cache entry serves every route. */
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
    // Cached under the key-set version from the start: a key removed meanwhile makes the entry stale at once.
    this.cache.set(token, principal, validUntilSeconds * 1000, keysVersion);
    return principal;
  }
}
