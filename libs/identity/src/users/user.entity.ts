import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, Unique } from 'typeorm';
import { TenantEntity } from '../tenants/tenant.entity';

export const userRoles = ['admin', 'user'] as const;
export type UserRole = (typeof userRoles)[number];

export const userStatuses = ['unverified', 'pending', 'approved'] as const;
export type UserStatus = (typeof userStatuses)[number];

export interface Labelled {
  id: string;
  label: string;
}

/** A person who logs in (spec document 1 claims, document 3 admin "User"). */
@Entity({ schema: 'identity', name: 'users' })
@Unique('users_email_key', ['email'])
@Unique('users_username_key', ['username'])
@Check('users_role', `"role" IN ('admin', 'user')`)
@Check('users_status', `"status" IN ('unverified', 'pending', 'approved')`)
@Index('users_tenant_id_created_at_idx', ['tenantId', 'createdAt'])
export class UserEntity {
  /** `sub` of the user's tokens. */
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'users_pkey' })
  id!: string;

  @Index('users_tenant_id_idx')
  @Column({ type: 'uuid' })
  tenantId!: string;

  @ManyToOne(() => TenantEntity, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'tenant_id', foreignKeyConstraintName: 'users_tenant_id_fkey' })
  tenant?: TenantEntity;

  /** Lower-cased. */
  @Column({ type: 'text' })
  email!: string;

  @Column({ type: 'boolean' })
  emailVerified!: boolean;

  /** Lower-cased; what the login form accepts besides the e-mail address. */
  @Column({ type: 'text' })
  username!: string;

  @Column({ type: 'text' })
  displayName!: string;

  /** argon2id (PHC string); null for users who only sign in through their identity provider. */
  @Column({ type: 'text', nullable: true })
  passwordHash!: string | null;

  @Column({ type: 'text' })
  role!: UserRole;

  /** Realm role `developer`: may use clients that are Unpublished. */
  @Column({ type: 'boolean' })
  developer!: boolean;

  /**
   * An account of the platform itself: while also `admin`, it may hold `platform:manage`. Set only by
   * `platformctl users set-operator` and realm files, never by a tenant-facing route.
   */
  @Column({ type: 'boolean', default: false })
  platformOperator!: boolean;

  @Column({ type: 'text' })
  status!: UserStatus;

  @Column({ type: 'jsonb', nullable: true })
  organization!: Labelled | null;

  @Column({ type: 'jsonb', nullable: true })
  job!: Labelled | null;

  @Column({ type: 'text', nullable: true })
  bio!: string | null;

  /** The user's id at the enterprise tenant's identity provider (`idp.sub`). */
  @Column({ type: 'text', nullable: true })
  idpSubject!: string | null;

  /** Tokens issued before this are refused (role lowered, sessions invalidated). */
  @Column({ type: 'timestamptz', nullable: true })
  sessionsValidAfter!: Date | null;

  @Column({ type: 'timestamptz' })
  createdAt!: Date;

  @Column({ type: 'timestamptz' })
  updatedAt!: Date;

  @Column({ type: 'timestamptz', nullable: true })
  lastLoginAt!: Date | null;
}
