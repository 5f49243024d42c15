import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** One row per admin action (spec document 3, "Audit log"). */
@Entity({ schema: 'audit', name: 'audit_logs' })
// Pages newest first (and the retention's oldest first) walk this index, whatever the table's size.
@Index('audit_logs_created_at_idx', ['createdAt', 'id'])
// A tenant's page (the caller's tenant in the query); rows without a tenant are the operator's only.
@Index('audit_logs_tenant_idx', ['tenantId', 'createdAt', 'id'], { where: '"tenant_id" IS NOT NULL' })
export class AuditLogEntity {
  /** `auditLogId`: time-ordered (UUID version 7), so inserts land on the index's newest pages. */
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'audit_logs_pkey' })
  id!: string;

  /** For example `users/show` or `config/organizations/create`. */
  @Column({ type: 'text' })
  resource!: string;

  /** approve, reject, promote, demote, create, update, delete and others. */
  @Column({ type: 'text' })
  action!: string;

  @Column({ type: 'jsonb', nullable: true })
  meta!: Record<string, unknown> | null;

  /** The actor's subject (a user id, or a service account's). */
  @Column({ type: 'text' })
  userId!: string;

  @Column({ type: 'text', nullable: true })
  userEmail!: string | null;

  @Column({ type: 'text', nullable: true })
  ipAddress!: string | null;

  @Column({ type: 'text', nullable: true })
  userAgent!: string | null;

  @Column({ type: 'timestamptz' })
  createdAt!: Date;

  /** The acting admin's tenant; null: a token without one, or a row from before tenants were recorded. */
  @Column({ type: 'text', nullable: true })
  tenantId!: string | null;
}
