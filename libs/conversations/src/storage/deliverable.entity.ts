import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** An output file of an assistant message (history `deliverables[]`); its bytes are the blob `blobKey`. */
@Entity({ schema: 'conversations', name: 'deliverables' })
// One file per path and message: writing a path again replaces it, and a retried attempt cannot duplicate it.
@Index('deliverables_message_filepath_key', ['messageId', 'filepath'], { unique: true })
@Index('deliverables_conversation_idx', ['conversationId'])
export class DeliverableEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'deliverables_pkey' })
  id!: string;

  @Column({ type: 'uuid' })
  conversationId!: string;

  @Column({ type: 'uuid' })
  messageId!: string;

  @Column({ type: 'text' })
  userId!: string;

  @Column({ type: 'text', nullable: true })
  tenantId!: string | null;

  /** Relative path inside the turn's output (`report.md`, `charts/q3.csv`). */
  @Column({ type: 'text' })
  filepath!: string;

  @Column({ type: 'text' })
  filename!: string;

  /** Null when it could not be determined. */
  @Column({ type: 'text', nullable: true })
  mimeType!: string | null;

  @Column({ type: 'bigint', default: 0 })
  size!: string;

  @Column({ type: 'text', default: 'agent' })
  source!: 'agent' | 'user';

  /** At most one per message: the turn's main result. */
  @Column({ type: 'boolean', default: false })
  isPrimary!: boolean;

  @Column({ type: 'text' })
  blobKey!: string;

  @Column({ type: 'timestamptz' })
  createdAt!: Date;
}
