export {
  ACCESS_TOKEN_AUDIENCE,
  AUTH_TIME_MS_CLAIM,
  type AcceptedResource,
  type ClaimRules,
  checkAccessTokenClaims,
  tokenResource,
} from './access-token.claims';
export { AccessTokenGuard } from './access-token.guard';
export type { AccessTokenClaims, AccessTokenPrincipal, TenantClaim } from './access-token.principal';
export { AccessTokenVerifier, type AccessTokenVerifierOptions } from './access-token.verifier';
export { type AuthenticatedRequest, authenticateRequest } from './authenticate-request';
export { AUTH_REALM, REVOKED_TOKEN, insufficientScope, invalidToken, missingToken } from './auth.errors';
export { AUTH_OPTIONS, AuthModule, type AuthOptions, DEFAULT_MAX_TOKEN_AGE_SECONDS } from './auth.module';
export { bearerTokenFrom } from './bearer-token';
export { CurrentRoles, type CurrentRolesOptions, type RoleHolder } from './current-roles';
export { CurrentPrincipal, principalOf } from './current-principal.decorator';
export { JWKS_DEFAULTS, JwksKeySet, type JwksKeySetOptions } from './jwks-key-set';
export {
  PROTECTED_RESOURCE_PATHS,
  type ProtectedResource,
  protectedResourceUrl,
  protectedResourceUrls,
} from './protected-resources';
export { Public } from './public.decorator';
export { ForResources, RESOURCES_METADATA } from './resources.decorator';
export { type RevocableToken, RevocationList, type RevocationListOptions } from './revocation-list';
export { SAAS_ONLY_METADATA, SaasOnly } from './saas-only.decorator';
export { MARKETPLACE_ONLY_METADATA, MarketplaceOnly } from './marketplace-only.decorator';
export { Scopes } from './scopes.decorator';
export { DEFAULT_VERIFICATION_CACHE_SIZE, VerificationCache } from './verification-cache';
