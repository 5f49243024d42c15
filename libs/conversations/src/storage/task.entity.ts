import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { TaskFile, TaskStatus } from '@fed/contracts';

/** A task of an assistant message (history `tasks[]`): the last state of each task the stream showed. */
@Entity({ schema: 'conversations', name: 'tasks' })
@Index('tasks_message_position_idx', ['messageId', 'position'])
export class TaskEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'tasks_pkey' })
  id!: string;

  @Column({ type: 'uuid' })
  messageId!: string;

  @Column({ type: 'uuid' })
  conversationId!: string;

  @Column({ type: 'integer' })
  position!: number;

  @Column({ type: 'text', nullable: true })
  callId!: string | null;

  @Column({ type: 'text' })
  actionType!: string;

  @Column({ type: 'text', nullable: true })
  title!: string | null;

  @Column({ type: 'text', nullable: true })
  description!: string | null;

  @Column({ type: 'text', nullable: true })
  content!: string | null;

  @Column({ type: 'text' })
  status!: TaskStatus;

  @Column({ type: 'jsonb', nullable: true })
  metadata!: Record<string, unknown> | null;

  @Column({ type: 'jsonb', nullable: true })
  files!: TaskFile[] | null;

  /** Unix milliseconds. */
  @Column({ type: 'bigint' })
  timestamp!: string;

  @Column({ type: 'timestamptz' })
  createdAt!: Date;

  @Column({ type: 'timestamptz' })
  updatedAt!: Date;
}
