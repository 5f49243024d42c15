import { Column, Entity, Index, JoinColumn, ManyToOne, OneToOne, PrimaryColumn } from 'typeorm';
import { TenantEntity } from '../tenants/tenant.entity';
import { type ClaimMapping } from './claim-mapping';

/** The upstream OpenID provider an enterprise tenant's staff sign in with (one per tenant). */
@Entity({ schema: 'identity', name: 'tenant_identity_providers' })
export class TenantIdpEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'tenant_identity_providers_pkey' })
  tenantId!: string;

  @OneToOne(() => TenantEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tenant_id', foreignKeyConstraintName: 'tenant_identity_providers_tenant_id_fkey' })
  tenant?: TenantEntity;

  /** Compared exactly with the upstream's discovery document and ID tokens. */
  @Column({ type: 'text' })
  issuer!: string;

  @Column({ type: 'text' })
  clientId!: string;

  /** AES-256-GCM under a key derived from KEY_ENCRYPTION_KEY, bound to the tenant (sealed-box.ts). */
  @Column({ type: 'bytea' })
  clientSecretCiphertext!: Buffer;

  @Column({ type: 'text', array: true })
  scopes!: string[];

  /** Which upstream claim fills each field of the user (and of userinfo's `idp`). */
  @Column({ type: 'jsonb' })
  claims!: ClaimMapping;

  @Column({ type: 'timestamptz' })
  createdAt!: Date;

  /** Part of the key of the cached upstream configuration: a change is seen at the next request. */
  @Column({ type: 'timestamptz' })
  updatedAt!: Date;
}

/** Home-realm discovery: an e-mail domain whose users sign in at their tenant's provider. */
@Entity({ schema: 'identity', name: 'tenant_idp_domains' })
export class TenantIdpDomainEntity {
  /** Lower-cased; one tenant per domain (the primary key decides atomically). */
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'tenant_idp_domains_pkey' })
  domain!: string;

  @Index('tenant_idp_domains_tenant_id_idx')
  @Column({ type: 'uuid' })
  tenantId!: string;

  @ManyToOne(() => TenantIdpEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tenant_id', foreignKeyConstraintName: 'tenant_idp_domains_tenant_id_fkey' })
  provider?: TenantIdpEntity;
}
