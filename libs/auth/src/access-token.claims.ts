import { isUuid } from '@fed/contracts';
import { invalidToken } from './auth.errors';
import { type AccessTokenClaims } from './access-token.principal';

// `broker`, or the resource URL a token was asked for (RFC 8707); Client Credentials tokens have no `aud`.
export const ACCESS_TOKEN_AUDIENCE = 'broker';

/** Epoch ms, because whole-second `auth_time` cannot order a sign-in and a session cut-off in the same second. */
export const AUTH_TIME_MS_CLAIM = 'auth_time_ms';

export interface ClaimRules {
  issuer: string;
  clockSkewSeconds: number;
  /** Tokens issued longer ago than this are refused, whatever their `exp` (bounds revocation memory). */
  maxTokenAgeSeconds: number;
}

/** The spec's claim rules for every service: a malformed claim is a 401 here, never a failure deeper in. */
export function checkAccessTokenClaims(
  payload: Record<string, unknown>,
  rules: ClaimRules,
  nowSeconds: number,
  acceptedResource?: AcceptedResource,
): AccessTokenClaims {
  const claims = checkClaimsForAnyResource(payload, rules, nowSeconds);
  checkTokenResource(tokenResource(claims), acceptedResource);
  return claims;
}

/** The RFC 8707 resource a token is bound to: its `aud` when that is one string other than `broker`. */
export function tokenResource(claims: Pick<AccessTokenClaims, 'aud'>): string | undefined {
  return typeof claims.aud === 'string' && claims.aud !== ACCESS_TOKEN_AUDIENCE ? claims.aud : undefined;
}

/** The resource URL (or URLs) a route serves besides `broker`; none: a route of no resource. */
export type AcceptedResource = string | readonly string[] | undefined;

/** A token bound to a resource is refused by every route but that resource's. */
export function checkTokenResource(resource: string | undefined, accepted: AcceptedResource): void {
  if (resource === undefined) return;
  if (typeof accepted === 'string' ? resource !== accepted : !accepted?.includes(resource)) {
    throw invalidToken('the token is meant for another audience');
  }
}

/** The claim rules with a resource-bound token let through; the caller checks the resource per route. */
export function checkClaimsForAnyResource(
  payload: Record<string, unknown>,
  rules: ClaimRules,
  nowSeconds: number,
): AccessTokenClaims {
  const skew = rules.clockSkewSeconds;
  if (payload.iss !== rules.issuer) throw invalidToken('the token was issued by another issuer');
  const exp = numeric(payload, 'exp', true) as number;
  if (exp <= nowSeconds - skew) throw invalidToken('the token has expired');
  const nbf = numeric(payload, 'nbf', false);
  if (nbf !== undefined && nbf > nowSeconds + skew) throw invalidToken('the token is not valid yet');
  const iat = numeric(payload, 'iat', true) as number;
  if (iat > nowSeconds + skew) throw invalidToken('the token was issued in the future');
  if (nowSeconds - iat > rules.maxTokenAgeSeconds + skew) throw invalidToken('the token is too old');
  for (const name of ['sub', 'jti'] as const) {
    if (payload[name] !== undefined && typeof payload[name] !== 'string') throw malformed(name);
  }
  if (!nonEmptyString(payload.sub)) throw invalidToken('the token has no subject');
  if (!nonEmptyString(payload.jti)) throw invalidToken('the token has no id');
  // Only access tokens are `Bearer`; ID tokens (`ID`), refresh tokens and tokens without a type are not.
  if (payload.typ !== 'Bearer') throw invalidToken('the token is not an access token');
  if (!audienceShapeValid(payload.aud)) throw malformed('aud');
  if (!audienceAccepted(payload)) throw invalidToken('the token is meant for another audience');
  for (const name of ['azp', 'scope', 'preferred_username', 'sid'] as const) {
    if (payload[name] !== undefined && typeof payload[name] !== 'string') throw malformed(name);
  }
  numeric(payload, 'auth_time', false);
  numeric(payload, AUTH_TIME_MS_CLAIM, false);
  if (payload.realm_access !== undefined && !rolesClaimValid(payload.realm_access)) throw malformed('realm_access');
  if (payload.tenant === undefined) return payload as unknown as AccessTokenClaims;
  if (!tenantClaimValid(payload.tenant)) throw malformed('tenant');
  const tenant = payload.tenant as { id: string };
  return { ...payload, tenant: { ...tenant, id: tenant.id.toLowerCase() } } as unknown as AccessTokenClaims;
}

function numeric(payload: Record<string, unknown>, name: string, required: boolean): number | undefined {
  const value = payload[name];
  if (value === undefined) {
    if (required) throw invalidToken(`the token has no "${name}" claim`);
    return undefined;
  }
  if (typeof value !== 'number' || !Number.isFinite(value)) throw malformed(name);
  return value;
}

function malformed(name: string) {
  return invalidToken(`the "${name}" claim is malformed`);
}

function nonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}

// Code-flow tokens carry `aud: broker`, Client Credentials tokens none, resource tokens the resource URL alone.
function audienceAccepted(payload: Record<string, unknown>): boolean {
  const { aud } = payload;
  if (aud === undefined) return isClientCredentialsToken(payload);
  if (typeof aud === 'string') return aud !== '';
  return Array.isArray(aud) && aud.includes(ACCESS_TOKEN_AUDIENCE);
}

function isClientCredentialsToken(payload: Record<string, unknown>): boolean {
  const roles = (payload.realm_access as { roles?: unknown } | undefined)?.roles;
  return (
    typeof payload.preferred_username === 'string' &&
    payload.preferred_username.startsWith('service-account-') &&
    Array.isArray(roles) &&
    roles.includes('M2M')
  );
}

function rolesClaimValid(realmAccess: unknown): boolean {
  if (typeof realmAccess !== 'object' || realmAccess === null || Array.isArray(realmAccess)) return false;
  const roles = (realmAccess as { roles?: unknown }).roles;
  return roles === undefined || (Array.isArray(roles) && roles.every((role) => typeof role === 'string'));
}

function audienceShapeValid(aud: unknown): boolean {
  return (
    aud === undefined || typeof aud === 'string' || (Array.isArray(aud) && aud.every((a) => typeof a === 'string'))
  );
}

// Tenants are keyed by UUID (the tenants table, and every tenant-scoped query): any other id names no tenant.
function tenantClaimValid(tenant: unknown): boolean {
  if (typeof tenant !== 'object' || tenant === null || Array.isArray(tenant)) return false;
  const { id, type, endpoint } = tenant as Record<string, unknown>;
  return isUuid(id) && (type === 'enterprise' || type === 'saas') && typeof endpoint === 'string';
}
