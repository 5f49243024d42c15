// For libs/sign-in (same domain and schema) only; eslint.config.mjs forbids other importers.
export { validRedirectUris } from './clients/client-registration';
export {
  ClientEntity,
  type ClientRegistrationKind,
  type GrantType,
  isClientIdShaped,
  isPublicClient,
  MAX_METADATA_CLIENT_ID,
} from './clients/client.entity';
export { ClientRepository } from './clients/client.repository';
export { ClientsError } from './clients/clients.errors';
export { ClientsModule } from './clients/clients.module';
export { clientSecretMatches, ClientsService } from './clients/clients.service';
export { identityEntities } from './identity.entities';
export { defaultClaimMapping, idpUserInfo, profileFrom, type UpstreamProfile } from './idp/claim-mapping';
export { IdpError } from './idp/idp.errors';
export { SealedBox, UnsealError } from './idp/sealed-box';
export { TenantIdpRepository } from './idp/tenant-idp.repository';
export { isLoopbackHttp, validateIdpSettings } from './idp/tenant-idp.rules';
export { tenantIdpsServiceFor } from './idp/tenant-idps.factory';
export { TenantIdpsService, type UpstreamSettings } from './idp/tenant-idps.service';
export { linkLifetimes } from './notifications/account-mails';
export { AccountTokenRepository, type AccountTokenState } from './notifications/account-token.repository';
export { NotificationsModule } from './notifications/notifications.module';
export { UserNotifications } from './notifications/user-notifications';
export {
  ACCOUNT_PATH,
  type AccountContext,
  accountPaths,
  accountUrl,
  interactionUid,
  loginPageLinks,
  signInUrl,
} from './pages/account-links';
export { defineCatalog } from './pages/catalog';
export { isUiLocale, negotiateLocale, type UiLocale } from '@fed/contracts';
export { escapeHtml, PAGE_SECURITY_HEADERS, renderPage } from './pages/page-shell';
export { IDP_CALLBACK_PATH, INTERACTION_PATH, OIDC_BASE_PATH } from './pages/paths';
export { KeyEncryption } from './signing-keys/key-encryption';
export { PublishedJwks } from './signing-keys/published-jwks';
export { keyEncryptionFor, SigningKeysModule } from './signing-keys/signing-keys.module';
export { SigningKeysService } from './signing-keys/signing-keys.service';
export { type TenantEntity } from './tenants/tenant.entity';
export {
  accessTokenEndedBy,
  loginEndedBy,
  type SessionInvalidations,
  signalSessionInvalidations,
} from './users/session-invalidations';
export { UserEntity, type UserRole, type UserStatus } from './users/user.entity';
export { UserRepository } from './users/user.repository';
export { UsersError } from './users/users.errors';
export { UsersModule } from './users/users.module';
export { checkPassword, hashPassword, UsersService, type UserView, validateUserFields } from './users/users.service';
export {
  acceptedIdTokenAlgorithms,
  discoverUpstream,
  ID_TOKEN_ALGORITHMS,
  UPSTREAM_TIMEOUT_SECONDS,
} from './idp/upstream-discovery';
