import { Column, Entity, Generated, Index, PrimaryColumn } from 'typeorm';
import type { ChatTurnOptions, Deliverable } from '@fed/contracts';

export type Sender = 'User' | 'AI';

/** A user attachment as shown in history (`files[]` of a `User` message). */
export interface MessageFile {
  /** An upload's `fileId`; for a library file, the library item's id. */
  fileId: string;
  mimeType: string;
  width?: number;
  height?: number;
}

/** The row's attachment: the history fields plus what the runtime names it by (never shown). */
export interface StoredMessageFile extends MessageFile {
  /** The upload's filename, or the last segment of a library file's path. */
  filename?: string;
  /** Library files only: the `filepath` the request named. */
  filepath?: string;
}

export interface TurnError {
  code: string;
  message: string;
}

/** The options of the chat request that started an assistant message (skills resolved); the runtime reads them. */
export type TurnOptions = ChatTurnOptions;

/** The `ask_user` call the turn ended on: the user's next message is its result. */
export interface PendingInteraction {
  callId: string;
  toolName: string;
  /** The tool call's arguments as the model sent them (JSON text). */
  arguments: string;
  /** Text the assistant produced before the call, in the same model message. */
  assistantText: string;
}

/** One message of a conversation (history `Message`), active or archived conversation alike. */
@Entity({ schema: 'conversations', name: 'messages' })
@Index('messages_conversation_seq_idx', ['conversationId', 'seq'])
// At most one turn in progress per conversation, enforced by the database (409 otherwise).
@Index('messages_one_processing_idx', ['conversationId'], { unique: true, where: '"processing"' })
@Index('messages_processing_heartbeat_idx', ['heartbeatAt'], { where: '"processing"' })
// Search's GIN indexes and its newest-first walk (user_id, created_at DESC, seq DESC), which TypeORM cannot
// describe (migration AddMessageSearch1795400000000 creates them).
@Index('messages_search_idx', { synchronize: false })
@Index('messages_text_trgm_idx', { synchronize: false })
@Index('messages_owner_newest_idx', { synchronize: false })
export class MessageEntity {
  /** `messageId`; for an assistant message also the run id (queue job and chunk stream). */
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'messages_pkey' })
  id!: string;

  /** Insertion order inside the conversation (two messages of one request share a timestamp). */
  @Column({ type: 'bigint' })
  @Generated('increment')
  seq!: string;

  @Column({ type: 'uuid' })
  conversationId!: string;

  @Column({ type: 'text' })
  userId!: string;

  @Column({ type: 'text', nullable: true })
  tenantId!: string | null;

  @Column({ type: 'text' })
  sender!: Sender;

  @Column({ type: 'text' })
  text!: string;

  /** The text-search configuration of the text's language (`english`, `simple`, ...), set by the text's writer. */
  @Column({ type: 'text', default: 'simple', select: false })
  searchConfig!: string;

  /** Set by a trigger from `searchConfig` and the text once the turn has ended (docs/chat.md, Message search). */
  @Column({ type: 'tsvector', nullable: true, select: false, insert: false, update: false })
  searchVector!: string | null;

  @Column({ type: 'boolean', default: false })
  processing!: boolean;

  @Column({ type: 'boolean', default: false })
  unfinished!: boolean;

  @Column({ type: 'jsonb', nullable: true })
  files!: StoredMessageFile[] | null;

  @Column({ type: 'jsonb', nullable: true })
  deliverables!: Deliverable[] | null;

  /** Assistant messages: the request's options. */
  @Column({ type: 'jsonb', nullable: true })
  turnOptions!: TurnOptions | null;

  /** Assistant messages: the user message this one answers. */
  @Column({ type: 'uuid', nullable: true })
  replyTo!: string | null;

  /** Assistant messages that ended waiting for the user. */
  @Column({ type: 'jsonb', nullable: true })
  pendingInteraction!: PendingInteraction | null;

  /** A failed turn's error chunk `error` (`agent_failed`, `runtime_lost`, ...); not shown in history. */
  @Column({ type: 'jsonb', nullable: true })
  error!: TurnError | null;

  /** Set by cancel: the state of record behind the `run.cancelled` signal. */
  @Column({ type: 'timestamptz', nullable: true })
  cancelRequestedAt!: Date | null;

  /** Refreshed by the runtime while it works on the turn; a stale one lets the reaper end the turn. */
  @Column({ type: 'timestamptz', nullable: true })
  heartbeatAt!: Date | null;

  @Column({ type: 'timestamptz' })
  createdAt!: Date;

  @Column({ type: 'timestamptz' })
  updatedAt!: Date;
}
