import type { UiResourceOrigin } from '@fed/contracts';
import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A UI resource a tool call showed; `html` resources' HTML is kept only for retrieval, never for model or history. */
@Entity({ schema: 'conversations', name: 'ui_resources' })
export class UiResourceEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'ui_resources_pkey' })
  conversationId!: string;

  /** The tool call's id: 1-128 of `[A-Za-z0-9_-]`. */
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'ui_resources_pkey' })
  toolCallId!: string;

  @Column({ type: 'uuid' })
  messageId!: string;

  @Column({ type: 'text' })
  userId!: string;

  @Column({ type: 'text', nullable: true })
  tenantId!: string | null;

  /** `html` or `data`; only `html` can be retrieved. */
  @Column({ type: 'text' })
  type!: 'html' | 'data';

  @Column({ type: 'text' })
  origin!: UiResourceOrigin;

  @Column({ type: 'text', nullable: true })
  mimeType!: string | null;

  @Column({ type: 'text', nullable: true })
  uri!: string | null;

  @Column({ type: 'text' })
  toolName!: string;

  @Column({ type: 'text' })
  serverName!: string;

  /** Null: an external resource whose HTML could not be read at tool time (read again on retrieval). */
  @Column({ type: 'text', nullable: true })
  html!: string | null;

  /** UTF-8 bytes of `html`. */
  @Column({ type: 'integer', nullable: true })
  size!: number | null;

  @Column({ type: 'jsonb', nullable: true })
  meta!: Record<string, unknown> | null;

  @Column({ type: 'jsonb', nullable: true })
  capabilities!: Record<string, unknown> | null;

  @Column({ type: 'timestamptz' })
  createdAt!: Date;
}
