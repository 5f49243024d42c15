import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** An active conversation (mode `active`). Archived ones live in their own table. */
@Entity({ schema: 'conversations', name: 'conversations' })
@Index('conversations_user_updated_idx', ['userId', 'updatedAt', 'id'])
// The archive retention pass: idle conversations oldest first, across owners.
@Index('conversations_updated_idx', ['updatedAt', 'id'])
// Marketplace: a service account's list across its agents (split_part of the owner key; the migration's).
@Index('conversations_account_updated_idx', { synchronize: false })
export class ConversationEntity {
  /** `conversationId`. */
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'conversations_pkey' })
  id!: string;

  /** The owner (`sub` of the user's token); every query is scoped by it. */
  @Column({ type: 'text' })
  userId!: string;

  @Column({ type: 'text', nullable: true })
  tenantId!: string | null;

  @Column({ type: 'text' })
  title!: string;

  @Column({ type: 'timestamptz' })
  createdAt!: Date;

  /** Last rename or turn; the list is ordered by it, and the archive retention counts from it. */
  @Column({ type: 'timestamptz' })
  updatedAt!: Date;
}

/** An archived conversation: a separate store, so the modes' cursors never cross; its messages stay where they are. */
@Entity({ schema: 'conversations', name: 'archived_conversations' })
@Index('archived_conversations_user_updated_idx', ['userId', 'updatedAt', 'id'])
@Index('archived_conversations_account_updated_idx', { synchronize: false })
export class ArchivedConversationEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'archived_conversations_pkey' })
  id!: string;

  @Column({ type: 'text' })
  userId!: string;

  @Column({ type: 'text', nullable: true })
  tenantId!: string | null;

  @Column({ type: 'text' })
  title!: string;

  @Column({ type: 'timestamptz' })
  createdAt!: Date;

  @Column({ type: 'timestamptz' })
  updatedAt!: Date;

  @Column({ type: 'timestamptz' })
  archivedAt!: Date;
}
