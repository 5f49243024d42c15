import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';

export const MEMORY_SCOPES = ['global', 'organization', 'role'] as const;
export type MemoryScope = (typeof MEMORY_SCOPES)[number];

/** A shared-memory item (document 3, "Memory item"); `search` and `revision` are set by a trigger on every write. */
@Entity({ schema: 'memory', name: 'entries' })
@Index('entries_tenant_updated_idx', ['tenantId', 'updatedAt'])
@Index('entries_key_idx', ['key'], { unique: true })
@Index('entries_revision_idx', ['revision'])
// A GIN index TypeORM cannot describe (the migration creates it).
@Index('entries_search_idx', { synchronize: false })
@Check(
  'entries_scope_check',
  `(scope = 'global' AND org_id IS NULL AND job_role IS NULL) OR (scope = 'organization' AND org_id IS NOT NULL AND job_role IS NULL) OR (scope = 'role' AND job_role IS NOT NULL AND org_id IS NULL)`,
)
export class MemoryEntryEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'entries_pkey' })
  id!: string;

  /** Null: shared by every tenant. */
  @Column({ type: 'text', nullable: true })
  tenantId!: string | null;

  @Column({ type: 'text', default: 'global' })
  scope!: MemoryScope;

  /** Set for `organization` items only. */
  @Column({ type: 'text', nullable: true })
  orgId!: string | null;

  /** Set for `role` items only. */
  @Column({ type: 'text', nullable: true })
  jobRole!: string | null;

  /** A short label (may be empty); not part of the item's `text`. */
  @Column({ type: 'text' })
  title!: string;

  /** The item's `text`. */
  @Column({ type: 'text' })
  content!: string;

  /** Where the fact came from (a conversation id, an admin, an import). */
  @Column({ type: 'text', nullable: true })
  source!: string | null;

  /** An importer's own id: importing the same key again replaces the item. */
  @Column({ type: 'text', nullable: true })
  key!: string | null;

  /** Little-endian float32 values; null: found by full-text search only. */
  @Column({ type: 'bytea', nullable: true, select: false })
  embedding!: Buffer | null;

  @Column({ type: 'text', nullable: true })
  embeddingModel!: string | null;

  @Column({ type: 'tsvector', nullable: true, select: false })
  search!: string | null;

  /** Taken from `memory.revision` by the write trigger: the vector index reads what changed since its own. */
  @Column({ type: 'bigint', default: 0, select: false })
  revision!: string;

  @Column({ type: 'timestamptz' })
  createdAt!: Date;

  @Column({ type: 'timestamptz' })
  updatedAt!: Date;
}

/** Queries of one tenant (or of the platform bucket, `''`) in one UTC month. */
@Entity({ schema: 'memory', name: 'query_usage' })
export class MemoryQueryUsageEntity {
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'query_usage_pkey' })
  bucket!: string;

  @PrimaryColumn({ type: 'date', primaryKeyConstraintName: 'query_usage_pkey' })
  month!: string;

  @Column({ type: 'integer' })
  used!: number;
}

export const memoryEntities = [MemoryEntryEntity, MemoryQueryUsageEntity];
