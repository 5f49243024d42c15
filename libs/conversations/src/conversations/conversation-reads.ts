import { type Deliverable } from '@fed/contracts';
import { ownedBy } from '@fed/persistence';
import { type DataSource, IsNull } from 'typeorm';
import { type ConversationOwner } from '../conversation-owner';
import { DeliverableEntity } from '../storage/deliverable.entity';

/** A message row as the A2A task view reads it. */
export interface StoredMessage {
  id: string;
  sender: 'User' | 'AI';
  text: string;
  processing: boolean;
  unfinished: boolean;
  cancelRequested: boolean;
  error: { code: string; message: string } | null;
  /** A runtime has taken the turn (its heartbeat is set). */
  started: boolean;
  deliverables: Deliverable[] | null;
  updatedAt: Date;
}

/** A task row of an assistant message: only those that carry UI or an interaction matter here. */
export interface StoredTask {
  messageId: string;
  callId: string | null;
  title: string | null;
  content: string | null;
  metadata: Record<string, unknown> | null;
}

/** A conversation as stored: its messages in order, the tasks of its assistant messages in order. */
export interface ConversationRecords {
  conversationId: string;
  messages: StoredMessage[];
  tasks: StoredTask[];
}

export interface DeliverableLookup {
  filepath: string;
  conversationId?: string;
  messageId?: string;
}

/** A deliverable's row as MCP's `get_file_content` reads it. */
export type StoredDeliverable = Readonly<DeliverableEntity>;

interface MessageRow {
  id: string;
  sender: 'User' | 'AI';
  text: string;
  processing: boolean;
  unfinished: boolean;
  cancel_requested: boolean;
  error: { code: string; message: string } | null;
  started: boolean;
  deliverables: Deliverable[] | null;
  updated_at: Date;
}

/** The protocol endpoints' reads (A2A, MCP), always through the owner; kept beside the tables' schema. */
export class ConversationReads {
  constructor(private readonly dataSource: DataSource) {}

  /** The owner's conversation (active or archived) with its messages and UI or interaction tasks; null when absent. */
  async records(owner: ConversationOwner, conversationId: string): Promise<ConversationRecords | null> {
    const parameters: unknown[] = [conversationId];
    const owned = ownedBy(owner, parameters);
    const found = (await this.dataSource.query(
      `SELECT 1 FROM "conversations"."conversations"
        WHERE "id" = $1 AND ${owned}
       UNION ALL
       SELECT 1 FROM "conversations"."archived_conversations"
        WHERE "id" = $1 AND ${owned}
       LIMIT 1`,
      parameters,
    )) as unknown[];
    if (found.length === 0) return null;
    const rows = (await this.dataSource.query(
      `SELECT "id", "sender", "text", "processing", "unfinished", "cancel_requested_at" IS NOT NULL AS "cancel_requested",
              "error", "heartbeat_at" IS NOT NULL AS "started", "deliverables", "updated_at"
         FROM "conversations"."messages"
        WHERE "conversation_id" = $1 AND ${owned}
        ORDER BY "seq"`,
      parameters,
    )) as MessageRow[];
    const taskParameters: unknown[] = [conversationId];
    const tasks = (await this.dataSource.query(
      `SELECT t."message_id" AS "messageId", t."call_id" AS "callId", t."title", t."content", t."metadata"
         FROM "conversations"."tasks" AS t
         JOIN "conversations"."messages" AS m ON m."id" = t."message_id"
        WHERE t."conversation_id" = $1 AND ${ownedBy(owner, taskParameters, 'm')}
          AND (t."metadata" ? 'uiResource' OR t."metadata" ? 'interaction_type' OR m."processing")
        ORDER BY m."seq", t."position", t."id"`,
      taskParameters,
    )) as StoredTask[];
    return { conversationId, messages: rows.map(toStoredMessage), tasks };
  }

  /** Whether a cancel was requested of the owner's turn `messageId` (what tells a cancel from the step limit). */
  async cancelRequested(owner: ConversationOwner, messageId: string): Promise<boolean> {
    const parameters: unknown[] = [messageId];
    const rows = (await this.dataSource.query(
      `SELECT 1 FROM "conversations"."messages"
        WHERE "id" = $1 AND ${ownedBy(owner, parameters)} AND "cancel_requested_at" IS NOT NULL`,
      parameters,
    )) as unknown[];
    return rows.length > 0;
  }

  /** The owner's newest deliverable with this path, within the conversation and turn when given. */
  newestDeliverable(owner: ConversationOwner, lookup: DeliverableLookup): Promise<StoredDeliverable | null> {
    return this.dataSource.manager.findOne(DeliverableEntity, {
      where: {
        userId: owner.userId,
        tenantId: owner.tenantId ?? IsNull(),
        filepath: lookup.filepath,
        ...(lookup.conversationId ? { conversationId: lookup.conversationId } : {}),
        ...(lookup.messageId ? { messageId: lookup.messageId } : {}),
      },
      order: { createdAt: 'DESC', id: 'DESC' },
    });
  }
}

function toStoredMessage(row: MessageRow): StoredMessage {
  return {
    id: row.id,
    sender: row.sender,
    text: row.text,
    processing: row.processing,
    unfinished: row.unfinished,
    cancelRequested: row.cancel_requested,
    error: row.error,
    started: row.started,
    deliverables: row.deliverables,
    updatedAt: row.updated_at,
  };
}
