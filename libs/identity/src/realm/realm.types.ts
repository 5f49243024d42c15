import { type GrantType, type PublicationStatus } from '../clients/client.entity';
import { type TenantIdpSettings } from '../idp/tenant-idp.rules';
import { type TenantType } from '../tenants/tenant.entity';
import { type Labelled, type UserRole, type UserStatus } from '../users/user.entity';

export interface RealmTenant {
  name: string;
  type: TenantType;
  endpoint: string;
  enabled?: boolean;
  idp?: TenantIdpSettings;
}

export interface RealmClient {
  clientId: string;
  name: string;
  secret?: string;
  secretSha256?: string;
  grantTypes: GrantType[];
  redirectUris?: string[];
  postLogoutRedirectUris?: string[];
  scopes?: string[];
  publicationStatus?: PublicationStatus;
  consentRequired?: boolean;
  /** False only for a legacy confidential client. */
  requirePkce?: boolean;
  /** Needed for a management scope on an authorization_code client (held by its admin users only). */
  allowManagementScopes?: boolean;
  enabled?: boolean;
  serviceAccountId?: string;
  /** Tenant name; the default saas tenant when omitted. */
  tenant?: string;
  /** The operator's integration: no tenant, client_credentials only. */
  operator?: boolean;
  /** No secret (token_endpoint_auth_method none): authorization_code and refresh_token only, PKCE always. */
  public?: boolean;
}

export interface RealmUser {
  email: string;
  username?: string;
  displayName: string;
  emailVerified?: boolean;
  password?: string;
  passwordHash?: string;
  role?: UserRole;
  developer?: boolean;
  /** An account of the platform itself: with role admin, it may hold `platform:manage`. */
  platformOperator?: boolean;
  status?: UserStatus;
  tenant?: string;
  organization?: Labelled;
  job?: Labelled;
  bio?: string;
  idpSubject?: string;
}

/** A realm file (`docs/realm.schema.json`). */
export interface RealmFile {
  $schema?: string;
  realm: 'federation';
  tenants?: RealmTenant[];
  clients?: RealmClient[];
  users?: RealmUser[];
}

export interface ImportReport {
  tenants: { created: number; updated: number };
  clients: { created: number; updated: number };
  users: { created: number; updated: number };
  /** Shown once. */
  generatedSecrets: { clientId: string; secret: string }[];
  /** Users the file demoted or no longer approves: their existing sessions ended. */
  sessionsEnded: string[];
}
