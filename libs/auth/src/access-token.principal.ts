import { tokenResource } from './access-token.claims';

/** Tenant of the user or service account (claims `tenant.id`, `tenant.type`, `tenant.endpoint`). */
export interface TenantClaim {
  readonly id: string;
  readonly type: 'enterprise' | 'saas';
  readonly endpoint: string;
}

/** The claims of an access token as they arrive (spec, document 1, "JWT"). */
export interface AccessTokenClaims {
  readonly sub: string;
  readonly iss: string;
  readonly exp: number;
  readonly iat: number;
  readonly jti: string;
  readonly nbf?: number;
  readonly typ?: string;
  readonly azp?: string;
  readonly scope?: string;
  readonly aud?: string | readonly string[];
  readonly sid?: string;
  readonly auth_time?: number;
  readonly auth_time_ms?: number;
  readonly preferred_username?: string;
  readonly realm_access?: { readonly roles?: readonly string[] };
  readonly tenant?: TenantClaim;
  readonly [claim: string]: unknown;
}

/** Who called, as proven by a verified access token. Shared between requests: treat as read-only. */
export interface AccessTokenPrincipal {
  readonly subject: string;
  /** `azp`: the client that requested the token. */
  readonly clientId: string | undefined;
  readonly scopes: ReadonlySet<string>;
  /** `realm_access.roles`. */
  readonly roles: readonly string[];
  readonly tenant?: TenantClaim;
  /** `jti`: what a revocation names. */
  readonly tokenId: string;
  /** Unix seconds. */
  readonly issuedAt: number;
  /** Unix seconds. */
  readonly expiresAt: number;
  /** `auth_time_ms`, epoch ms, when the token carries it. */
  readonly authTimeMs?: number;
  readonly isServiceAccount: boolean;
  /** The resource (RFC 8707) the token was issued for, its `aud`; absent for a token of `broker`. */
  readonly resource?: string;
  readonly claims: AccessTokenClaims;
}

const SERVICE_ACCOUNT_PREFIX = 'service-account-';
const M2M_ROLE = 'M2M';

export function toPrincipal(claims: AccessTokenClaims): AccessTokenPrincipal {
  const roles = claims.realm_access?.roles ?? [];
  const resource = tokenResource(claims);
  const principal: AccessTokenPrincipal = {
    subject: claims.sub,
    clientId: claims.azp,
    scopes: new Set(claims.scope ? claims.scope.split(' ').filter(Boolean) : []),
    roles,
    tokenId: claims.jti,
    issuedAt: claims.iat,
    expiresAt: claims.exp,
    ...(claims.auth_time_ms !== undefined ? { authTimeMs: claims.auth_time_ms } : {}),
    isServiceAccount:
      (claims.preferred_username?.startsWith(SERVICE_ACCOUNT_PREFIX) ?? false) || roles.includes(M2M_ROLE),
    claims: deepFreeze(claims),
    ...(resource !== undefined ? { resource } : {}),
    ...(claims.tenant ? { tenant: claims.tenant } : {}),
  };
  return Object.freeze(principal);
}

// The principal is cached and handed to every request that shows the same token.
function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const member of Object.values(value)) deepFreeze(member);
  }
  return value;
}
