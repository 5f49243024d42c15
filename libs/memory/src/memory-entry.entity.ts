import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** One fact of the shared memory that agents search (`search_memory`); filled by the admin APIs. */
@Entity({ schema: 'memory', name: 'entries' })
@Index('entries_tenant_updated_idx', ['tenantId', 'updatedAt'])
export class MemoryEntryEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'entries_pkey' })
  id!: string;

  /** Null: shared by every tenant. */
  @Column({ type: 'text', nullable: true })
  tenantId!: string | null;

  @Column({ type: 'text' })
  title!: string;

  @Column({ type: 'text' })
  content!: string;

  /** Where the fact came from (a conversation id, an admin, an import). */
  @Column({ type: 'text', nullable: true })
  source!: string | null;

  @Column({ type: 'timestamptz' })
  createdAt!: Date;

  @Column({ type: 'timestamptz' })
  updatedAt!: Date;
}
