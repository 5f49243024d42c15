import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** Spec document 3, "Access log"; written by every service's host (libs/server AccessLog). */
@Entity({ schema: 'audit', name: 'access_logs' })
@Index('access_logs_created_at_idx', ['createdAt', 'id'])
// A tenant's page (the caller's tenant in the query); rows without a tenant are the operator's only.
@Index('access_logs_tenant_idx', ['tenantId', 'createdAt', 'id'], { where: '"tenant_id" IS NOT NULL' })
export class AccessLogEntity {
  /** `accessLogId`: time-ordered (UUID v7). */
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'access_logs_pkey' })
  id!: string;

  /** `timestamp`. */
  @Column({ type: 'timestamptz' })
  createdAt!: Date;

  @Column({ type: 'text', nullable: true })
  service!: string | null;

  @Column({ type: 'text', nullable: true })
  sourceNamespace!: string | null;

  @Column({ type: 'text', nullable: true })
  sourceIp!: string | null;

  @Column({ type: 'text', nullable: true })
  method!: string | null;

  @Column({ type: 'text', nullable: true })
  host!: string | null;

  /** The path with its query redacted (libs/server `loggedPath`). */
  @Column({ type: 'text', nullable: true })
  path!: string | null;

  @Column({ type: 'text', nullable: true })
  userAgent!: string | null;

  @Column({ type: 'smallint', nullable: true })
  statusCode!: number | null;

  @Column({ type: 'double precision', nullable: true })
  durationMs!: number | null;

  @Column({ type: 'text', nullable: true })
  authzResult!: string | null;

  @Column({ type: 'text', nullable: true })
  authzReason!: string | null;

  /** The authenticated caller's tenant; null: none, or a row from before tenants were recorded. */
  @Column({ type: 'text', nullable: true })
  tenantId!: string | null;
}
