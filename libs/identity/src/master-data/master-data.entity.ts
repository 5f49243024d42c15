import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { TenantEntity } from '../tenants/tenant.entity';

// Document 3 master data. `tenantId` null: platform-wide, seen by every tenant. A code is unique among what one
// tenant sees; a tenant code against a platform one is checked on insert, the rest by the indexes below.

@Entity({ schema: 'identity', name: 'organizations' })
@Index('organizations_code_tenant_id_key', ['code', 'tenantId'], { unique: true })
@Index('organizations_platform_code_key', ['code'], { unique: true, where: `"tenant_id" IS NULL` })
export class OrganizationEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'organizations_pkey' })
  id!: string;

  @Column({ type: 'text' })
  code!: string;

  /** Null: platform-wide. */
  @Column({ type: 'uuid', nullable: true })
  tenantId!: string | null;

  @ManyToOne(() => TenantEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tenant_id', foreignKeyConstraintName: 'organizations_tenant_id_fkey' })
  tenant?: TenantEntity;

  @Column({ type: 'text' })
  label!: string;

  @Column({ type: 'timestamptz' })
  createdAt!: Date;

  @Column({ type: 'timestamptz' })
  updatedAt!: Date;
}

@Entity({ schema: 'identity', name: 'job_types' })
@Index('job_types_code_tenant_id_key', ['code', 'tenantId'], { unique: true })
@Index('job_types_platform_code_key', ['code'], { unique: true, where: `"tenant_id" IS NULL` })
export class JobTypeEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'job_types_pkey' })
  id!: string;

  @Column({ type: 'text' })
  code!: string;

  /** Null: platform-wide. */
  @Column({ type: 'uuid', nullable: true })
  tenantId!: string | null;

  @ManyToOne(() => TenantEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tenant_id', foreignKeyConstraintName: 'job_types_tenant_id_fkey' })
  tenant?: TenantEntity;

  @Column({ type: 'text' })
  label!: string;

  @Column({ type: 'timestamptz' })
  createdAt!: Date;

  @Column({ type: 'timestamptz' })
  updatedAt!: Date;
}

export type MasterDataKind = 'organization' | 'jobType';

export type MasterRecordEntity = OrganizationEntity | JobTypeEntity;
