import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, Unique } from 'typeorm';
import { TenantEntity } from '../tenants/tenant.entity';

export const grantTypes = ['authorization_code', 'client_credentials', 'refresh_token'] as const;
export type GrantType = (typeof grantTypes)[number];

/** How a client authenticates at the token endpoint: with its secret, or not at all (a public client, RFC 6749 2.1). */
export const tokenEndpointAuthMethods = ['client_secret_basic', 'none'] as const;
export type TokenEndpointAuthMethod = (typeof tokenEndpointAuthMethods)[number];

/** A `metadata_document` client's `client_id` is its Client ID Metadata Document URL; `dynamic` is RFC 7591. */
export const clientRegistrations = ['operator', 'metadata_document', 'dynamic'] as const;
export type ClientRegistrationKind = (typeof clientRegistrations)[number];

export const publicationStatuses = ['Published', 'Unpublished'] as const;
export type PublicationStatus = (typeof publicationStatuses)[number];

/** A relying party of the OpenID provider (spec document 1, "Client"). */
@Entity({ schema: 'identity', name: 'clients' })
@Unique('clients_service_account_id_key', ['serviceAccountId'])
@Check('clients_publication_status', `"publication_status" IN ('Published', 'Unpublished')`)
@Check(
  'clients_tenantless_client_credentials',
  `"tenant_id" IS NOT NULL OR "grant_types" = '{client_credentials}' OR "registration" <> 'operator'`,
)
// A tenant's client_credentials token with `platform:manage` would be a tenant holding the platform's power.
@Check(
  'clients_platform_scope_tenantless',
  `"tenant_id" IS NULL OR NOT ('platform:manage' = ANY ("scopes") AND 'client_credentials' = ANY ("grant_types")))`,
)
@Check('clients_token_endpoint_auth_method', `"token_endpoint_auth_method" IN ('client_secret_basic', 'none')`)
@Check('clients_registration', `"registration" IN ('operator', 'metadata_document', 'dynamic')`)
@Check('clients_public_without_secret', `("token_endpoint_auth_method" = 'none') = ("secret_hash" IS NULL)`)
@Check('clients_public_pkce', `"token_endpoint_auth_method" <> 'none' OR "require_pkce"`)
@Check(
  'clients_self_registered_public',
  `"registration" = 'operator' OR ("token_endpoint_auth_method" = 'none' AND "tenant_id" IS NULL)`,
)
export class ClientEntity {
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'clients_pkey' })
  clientId!: string;

  @Column({ type: 'text' })
  name!: string;

  /**
   * A disabled tenant gets no tokens. Null: the operator's own integration (tokens without `tenant`), or a
   * self-registered client usable by every tenant's users (tokens carry the user's tenant).
   */
  @Index('clients_tenant_id_idx')
  @Column({ type: 'uuid', nullable: true })
  tenantId!: string | null;

  @ManyToOne(() => TenantEntity, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'tenant_id', foreignKeyConstraintName: 'clients_tenant_id_fkey' })
  tenant?: TenantEntity;

  /** SHA-256: secrets are 256 random bits, so a slow hash adds only latency. Null for a public client. */
  @Column({ type: 'bytea', nullable: true })
  secretHash!: Buffer | null;

  @Column({ type: 'text', default: 'client_secret_basic' })
  tokenEndpointAuthMethod!: TokenEndpointAuthMethod;

  @Column({ type: 'text', default: 'operator' })
  registration!: ClientRegistrationKind;

  /** A metadata-document client's row is fetched again from its URL after this; null for the others. */
  @Column({ type: 'timestamptz', nullable: true })
  metadataExpiresAt!: Date | null;

  @Column({ type: 'timestamptz' })
  secretRotatedAt!: Date;

  @Column({ type: 'text', array: true })
  redirectUris!: string[];

  /** Where the sign-out page may send the browser back (`post_logout_redirect_uri`, exact match). */
  @Column({ type: 'text', array: true, default: () => "'{}'" })
  postLogoutRedirectUris!: string[];

  @Column({ type: 'text', array: true })
  grantTypes!: GrantType[];

  @Column({ type: 'text', array: true })
  scopes!: string[];

  @Column({ type: 'text' })
  publicationStatus!: PublicationStatus;

  @Column({ type: 'boolean' })
  consentRequired!: boolean;

  /** PKCE (S256) by default (OAuth 2.1, the security BCP); off only for an opted-out legacy confidential client. */
  @Column({ type: 'boolean', default: true })
  requirePkce!: boolean;

  /** `sub` of the client's service account in client-credentials tokens. */
  @Column({ type: 'uuid' })
  serviceAccountId!: string;

  @Column({ type: 'boolean', default: true })
  enabled!: boolean;

  @Column({ type: 'timestamptz' })
  createdAt!: Date;

  @Column({ type: 'timestamptz' })
  updatedAt!: Date;
}

/** A client with no secret (RFC 6749 2.1): it names itself with `client_id` and must use PKCE. */
export function isPublicClient(client: Pick<ClientEntity, 'tokenEndpointAuthMethod'>): boolean {
  return client.tokenEndpointAuthMethod === 'none';
}

/** Longest `client_id` of a Client ID Metadata Document (the MCP authorization spec's bound for its URL). */
export const MAX_METADATA_CLIENT_ID = 2048;

/** Checked before any lookup: operator ids are at most 64 characters; only an `https://` URL may be longer. */
export function isClientIdShaped(clientId: string): boolean {
  return clientId.length <= 64 || (clientId.length <= MAX_METADATA_CLIENT_ID && clientId.startsWith('https://'));
}
