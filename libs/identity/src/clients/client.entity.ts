import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, Unique } from 'typeorm';
import { TenantEntity } from '../tenants/tenant.entity';

export const grantTypes = ['authorization_code', 'client_credentials', 'refresh_token'] as const;
export type GrantType = (typeof grantTypes)[number];

export const publicationStatuses = ['Published', 'Unpublished'] as const;
export type PublicationStatus = (typeof publicationStatuses)[number];

/** A relying party of the OpenID provider (spec document 1, "Client"). */
@Entity({ schema: 'identity', name: 'clients' })
@Unique('clients_service_account_id_key', ['serviceAccountId'])
@Check('clients_publication_status', `"publication_status" IN ('Published', 'Unpublished')`)
@Check('clients_tenantless_client_credentials', `"tenant_id" IS NOT NULL OR "grant_types" = '{client_credentials}'`)
export class ClientEntity {
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'clients_pkey' })
  clientId!: string;

  @Column({ type: 'text' })
  name!: string;

  /**
   * The tenant whose `tenant.*` claims its tokens carry; a disabled tenant gets no tokens. Null: the platform
   * operator's own integration (client_credentials only), whose tokens carry no `tenant` claim.
   */
  @Index('clients_tenant_id_idx')
  @Column({ type: 'uuid', nullable: true })
  tenantId!: string | null;

  @ManyToOne(() => TenantEntity, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'tenant_id', foreignKeyConstraintName: 'clients_tenant_id_fkey' })
  tenant?: TenantEntity;

  /** SHA-256 of the secret: secrets are 256 random bits, so a slow hash adds nothing but latency. */
  @Column({ type: 'bytea' })
  secretHash!: Buffer;

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

  /** Consent screen enabled for this application. */
  @Column({ type: 'boolean' })
  consentRequired!: boolean;

  /**
   * The authorization code flow must use PKCE (S256): the default for every client (OAuth 2.1, the
   * security BCP); off only for a legacy confidential client whose operator opted it out.
   */
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
