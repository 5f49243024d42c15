// The public surface; the sign-in library reaches internals through ./internal.

export { RealmImportModule, realmServiceFor } from './realm/realm-import.module';
export { SigningKeysModule, keyEncryptionFor, signingKeysServiceFor } from './signing-keys/signing-keys.module';
export { SigningKeysAdminModule } from './signing-keys/signing-keys-admin.module';
export { TenantsAdminModule, tenantsServiceFor } from './tenants/tenants.module';
export { TenantIdpAdminModule } from './idp/tenant-idp-admin.module';
export { ClientsModule, clientsServiceFor } from './clients/clients.module';
export { ClientsAdminModule } from './clients/admin/clients-admin.module';
export { UsersModule, usersServiceFor } from './users/users.module';
export { AdminUsersModule } from './users/admin/admin-users.module';
export { UserProfileModule } from './users/profile/user-profile.module';
export { MasterDataListsModule, MasterDataModule, masterDataServiceFor } from './master-data/master-data.module';
export { NotificationsModule } from './notifications/notifications.module';

export { type ClientChanges, ClientsService, type ClientView, type IssuedSecret } from './clients/clients.service';
export {
  CLIENT_CACHE_WINDOW_MS,
  type ClientTokenRevocations,
  signalClientTokenRevocations,
} from './clients/client-token-revocations';
export {
  FIRST_PARTY_WEB_CLIENT_ID,
  type FirstPartyWebClient,
  ensureFirstPartyWebClient,
} from './clients/first-party-web-client';
export type * from './clients/admin/clients-admin.dto';
export { type ClientRegistration } from './clients/client-registration';
export { type GrantType, type PublicationStatus } from './clients/client.entity';
export { ClientsError, type ClientsErrorCode } from './clients/clients.errors';

export { UsersService, type NewUser, type UserView } from './users/users.service';
export { type Labelled, type UserRole, type UserStatus, userRoles } from './users/user.entity';
export { type SessionInvalidations, signalSessionInvalidations } from './users/session-invalidations';
export { UsersError, type UsersErrorCode } from './users/users.errors';
export { UserNotifications } from './notifications/user-notifications';
// The agent's shared-memory tools read a user's organization and job through this, not the users table.
export { type MemberProfile, MemberProfiles } from './users/member-profiles';

export { MasterDataService } from './master-data/master-data.service';
export { type MasterRecord } from './master-data/master-data.repository';
export { type MasterDataKind } from './master-data/master-data.entity';
export { MasterDataError, type MasterDataErrorCode } from './master-data/master-data.errors';

export { RealmError, RealmService } from './realm/realm.service';
export { readRealmFile } from './realm/realm-file';
export type * from './realm/realm.types';

export {
  type ActiveSigningKey,
  type SigningKeyState,
  type SigningKeyStatus,
  SigningKeysService,
} from './signing-keys/signing-keys.service';
export { type KeyEncryption, KeyDecryptionError } from './signing-keys/key-encryption';
export { SigningKeysError, type SigningKeysErrorCode } from './signing-keys/signing-keys.errors';
export {
  DEFAULT_ACTIVATE_IN_SECONDS,
  SigningKeyAdministration,
  type SigningKeyRevocation,
  type SigningKeyRevocations,
  signalSigningKeyRevocations,
} from './signing-keys/signing-keys-admin.service';

export {
  type NewTenant,
  type TenantChanges,
  type TenantKey,
  type TenantRow,
  TenantsService,
} from './tenants/tenants.service';
export { type TenantType, tenantTypes } from './tenants/tenant.entity';
export { TenantsError, type TenantsErrorCode } from './tenants/tenants.errors';

export { identityEntities } from './identity.entities';

export { type UiLocale, negotiateLocale, uiLocales } from '@fed/contracts';

export { idpSecretsKeyFor, tenantIdpsServiceFor } from './idp/tenant-idps.factory';
export { IDP_CALLBACK_PATH } from './pages/paths';
export { TenantIdpsService, type TenantIdpView } from './idp/tenant-idps.service';
export { type IdpCheckReport, TenantIdpCheck } from './idp/tenant-idp-check';
export { type TenantIdpSettings } from './idp/tenant-idp.rules';
export { type ClaimMapping, type MappedField, mappedFields } from './idp/claim-mapping';
export { IdpError, type IdpErrorCode } from './idp/idp.errors';
