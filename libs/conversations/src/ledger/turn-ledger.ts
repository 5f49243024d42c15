import { CHAT_TURN_DEFAULTS, type Deliverable } from '@fed/contracts';
import { modifyReturning, ownedBy } from '@fed/persistence';
import type { DataSource } from 'typeorm';
import type { PendingInteraction, Sender, StoredMessageFile, TurnOptions } from '../storage';
import { searchConfigOf } from '../search/search-language';
import type { UiResourceRecord } from '../ui-resources/ui-resource-record';
import type {
  ClaimedTurn,
  DeliverableRecord,
  HistoryMessage,
  LiveTurn,
  SavedDeliverable,
  TaskRecord,
  TurnEnd,
  TurnFile,
  TurnHeartbeat,
} from './claimed-turn';

/** Earlier messages given to the model with a turn. */
export const HISTORY_LIMIT = 40;

/** Options of a turn stored without `turn_options`: the chat request's defaults. */
export const DEFAULT_TURN_OPTIONS: TurnOptions = { ...CHAT_TURN_DEFAULTS };

interface DeliverableRow {
  filename: string;
  filepath: string;
  source: 'agent' | 'user';
  is_primary: boolean;
  created_at: Date;
  mime_type: string | null;
  size: string;
}

const DELIVERABLE_ROW = `SELECT "filename", "filepath", "source", "is_primary", "created_at", "mime_type", "size"
  FROM "conversations"."deliverables"`;

function toDeliverable(row: DeliverableRow): Deliverable {
  const size = Number(row.size);
  return {
    filename: row.filename,
    filepath: row.filepath,
    source: row.source,
    isPrimary: row.is_primary,
    createdAt: row.created_at.toISOString(),
    ...(row.mime_type ? { mimeType: row.mime_type } : {}),
    ...(size > 0 ? { size } : {}),
  };
}

interface ClaimedRow {
  id: string;
  conversation_id: string;
  user_id: string;
  tenant_id: string | null;
  turn_options: Partial<TurnOptions> | null;
  reply_to: string | null;
  text: string;
  seq: string;
  cancel_requested: boolean;
}

interface EarlierRow {
  id: string;
  sender: Sender;
  text: string;
  files: StoredMessageFile[] | null;
  pending_interaction: PendingInteraction | null;
}

/** agent-runtime's only access to these tables; every write requires a processing turn, so ended turns stay ended. */
export class TurnLedger {
  constructor(private readonly dataSource: DataSource) {}

  /** Marks the turn as taken (a fresh heartbeat) and reads it; null when it is no longer processing. */
  async claim(runId: string): Promise<ClaimedTurn | null> {
    const [row] = await modifyReturning<ClaimedRow>(
      this.dataSource,
      `UPDATE "conversations"."messages" SET "heartbeat_at" = now()
       WHERE "id" = $1 AND "processing" AND "sender" = 'AI'
       RETURNING "id", "conversation_id", "user_id", "tenant_id", "turn_options", "reply_to", "text", "seq",
                 "cancel_requested_at" IS NOT NULL AS "cancel_requested"`,
      [runId],
    );
    if (!row) return null;
    const user = row.reply_to ? await this.userMessage(row.conversation_id, row.reply_to) : undefined;
    const files = user ? await this.withUploads(user.files, row.user_id, row.tenant_id) : [];
    const earlier = await this.earlierMessages(row.conversation_id, user?.seq ?? row.seq);
    const last = earlier.at(-1);
    const pendingInteraction = last?.sender === 'AI' ? last.pending_interaction : null;
    if (last && pendingInteraction) {
      earlier.pop();
      await this.answerPendingTask(last.id, pendingInteraction.callId);
    }
    return {
      runId: row.id,
      conversationId: row.conversation_id,
      userId: row.user_id,
      tenantId: row.tenant_id,
      options: { ...DEFAULT_TURN_OPTIONS, ...(row.turn_options ?? {}) },
      text: row.text,
      userMessage: { messageId: row.reply_to ?? '', text: user?.text ?? '', files },
      history: earlier.map((message): HistoryMessage => ({
        sender: message.sender,
        text: message.text,
        ...(message.sender === 'User' && message.files?.length ? { files: message.files } : {}),
      })),
      pendingInteraction,
      cancelRequested: row.cancel_requested,
    };
  }

  /** One statement for all running turns; saving the shown text means a crash loses nothing shown. */
  async heartbeat(turns: readonly TurnHeartbeat[]): Promise<LiveTurn[]> {
    if (turns.length === 0) return [];
    const rows = await modifyReturning<{ id: string; cancel_requested: boolean }>(
      this.dataSource,
      `UPDATE "conversations"."messages" AS m SET "heartbeat_at" = now(), "text" = beat."text"
       FROM unnest($1::uuid[], $2::text[]) AS beat("id", "text")
       WHERE m."id" = beat."id" AND m."processing"
       RETURNING m."id", m."cancel_requested_at" IS NOT NULL AS "cancel_requested"`,
      [turns.map((turn) => turn.runId), turns.map((turn) => turn.text)],
    );
    return rows.map((row) => ({ runId: row.id, cancelRequested: row.cancel_requested }));
  }

  async saveTask(task: TaskRecord): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO "conversations"."tasks"
         ("id", "message_id", "conversation_id", "position", "call_id", "action_type", "title", "description",
          "content", "status", "metadata", "files", "timestamp", "created_at", "updated_at")
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
       ON CONFLICT ("id") DO UPDATE SET
         "call_id" = EXCLUDED."call_id", "action_type" = EXCLUDED."action_type", "title" = EXCLUDED."title",
         "description" = EXCLUDED."description", "content" = EXCLUDED."content", "status" = EXCLUDED."status",
         "metadata" = EXCLUDED."metadata", "files" = EXCLUDED."files", "timestamp" = EXCLUDED."timestamp",
         "updated_at" = EXCLUDED."updated_at"`,
      [
        task.id,
        task.messageId,
        task.conversationId,
        task.position,
        task.callId ?? null,
        task.actionType,
        task.title ?? null,
        task.description ?? null,
        task.content ?? null,
        task.status,
        task.metadata ? JSON.stringify(task.metadata) : null,
        task.files && task.files.length > 0 ? JSON.stringify(task.files) : null,
        task.timestamp,
        task.createdAt,
        task.updatedAt,
      ],
    );
  }

  /** Upserts by tool call id, only while the turn is processing; false if someone else ended it. */
  async saveUiResource(runId: string, resource: UiResourceRecord): Promise<boolean> {
    const html = resource.type === 'html' ? (resource.html ?? null) : null;
    const rows = (await this.dataSource.query(
      `INSERT INTO "conversations"."ui_resources"
         ("conversation_id", "tool_call_id", "message_id", "user_id", "tenant_id", "type", "origin", "mime_type",
          "uri", "tool_name", "server_name", "html", "size", "meta", "capabilities", "created_at")
       SELECT m."conversation_id", $2, m."id", m."user_id", m."tenant_id", $3, $4, $5, $6, $7, $8, $9, $10, $11, $12,
              now()
         FROM "conversations"."messages" AS m
        WHERE m."id" = $1 AND m."processing"
       ON CONFLICT ("conversation_id", "tool_call_id") DO UPDATE SET
         "message_id" = EXCLUDED."message_id", "type" = EXCLUDED."type", "origin" = EXCLUDED."origin",
         "mime_type" = EXCLUDED."mime_type", "uri" = EXCLUDED."uri", "tool_name" = EXCLUDED."tool_name",
         "server_name" = EXCLUDED."server_name", "html" = EXCLUDED."html", "size" = EXCLUDED."size",
         "meta" = EXCLUDED."meta", "capabilities" = EXCLUDED."capabilities", "created_at" = EXCLUDED."created_at"
       RETURNING 1 AS "stored"`,
      [
        runId,
        resource.toolCallId,
        resource.type,
        resource.origin,
        resource.mimeType ?? null,
        resource.uri ?? null,
        resource.toolName,
        resource.serverName,
        html,
        html === null ? null : Buffer.byteLength(html, 'utf8'),
        resource.meta ? JSON.stringify(resource.meta) : null,
        resource.capabilities ? JSON.stringify(resource.capabilities) : null,
      ],
    )) as { stored: number }[];
    return rows.length === 1;
  }

  /** Ends the turn and touches its conversation in one statement, only while processing; false if already ended. */
  async finish(runId: string, end: TurnEnd): Promise<boolean> {
    // Without a final text, the stored one (the last heartbeat's) keeps its configuration: `simple`.
    const searchConfig = end.text === undefined ? null : searchConfigOf(end.text);
    const rows = (await this.dataSource.query(
      `WITH "ended" AS (
         UPDATE "conversations"."messages"
         SET "processing" = false, "unfinished" = $2, "text" = COALESCE($3, "text"), "pending_interaction" = $4,
             "deliverables" = $5, "error" = $6, "search_config" = COALESCE($7, "search_config"),
             "heartbeat_at" = now(), "updated_at" = now()
         WHERE "id" = $1 AND "processing"
         RETURNING "conversation_id", "updated_at"
       ), "touched" AS (
         UPDATE "conversations"."conversations" AS c SET "updated_at" = "ended"."updated_at"
         FROM "ended" WHERE c."id" = "ended"."conversation_id"
       )
       SELECT count(*)::int AS "ended" FROM "ended"`,
      [
        runId,
        end.unfinished,
        end.text ?? null,
        end.pendingInteraction ? JSON.stringify(end.pendingInteraction) : null,
        end.deliverables && end.deliverables.length > 0 ? JSON.stringify(end.deliverables) : null,
        end.error ? JSON.stringify(end.error) : null,
        searchConfig,
      ],
    )) as { ended: number }[];
    return rows[0]?.ended === 1;
  }

  /**
   * Upserts by path while processing, returning the replaced blob key for the caller to delete. Exactly one file stays
   * primary (this, else the previous, else the first); locking the message row keeps both rules under concurrency.
   */
  async saveDeliverable(runId: string, file: DeliverableRecord): Promise<SavedDeliverable | null> {
    return this.dataSource.transaction(async (manager) => {
      const locked = (await manager.query(
        `SELECT 1 FROM "conversations"."messages" WHERE "id" = $1 AND "processing" FOR NO KEY UPDATE`,
        [runId],
      )) as unknown[];
      if (locked.length === 0) return null;
      const replaced = (await manager.query(
        `SELECT "blob_key" FROM "conversations"."deliverables" WHERE "message_id" = $1 AND "filepath" = $2`,
        [runId, file.filepath],
      )) as { blob_key: string }[];
      const saved = (await manager.query(
        `INSERT INTO "conversations"."deliverables"
           ("id", "conversation_id", "message_id", "user_id", "tenant_id", "filepath", "filename", "mime_type",
            "size", "source", "is_primary", "blob_key", "created_at")
         SELECT $2, m."conversation_id", m."id", m."user_id", m."tenant_id", $3, $4, $5, $6, 'agent', $7, $8,
                clock_timestamp()
           FROM "conversations"."messages" AS m
          WHERE m."id" = $1 AND m."processing"
         ON CONFLICT ("message_id", "filepath") DO UPDATE SET
           "id" = EXCLUDED."id", "filename" = EXCLUDED."filename", "mime_type" = EXCLUDED."mime_type", "size" = EXCLUDED."size",
           "is_primary" = EXCLUDED."is_primary" OR "deliverables"."is_primary", "blob_key" = EXCLUDED."blob_key",
           "created_at" = EXCLUDED."created_at"
         RETURNING "id"`,
        [runId, file.id, file.filepath, file.filename, file.mimeType ?? null, file.size, file.primary, file.blobKey],
      )) as { id: string }[];
      const id = saved[0]?.id;
      if (id === undefined) return null;
      await manager.query(
        file.primary
          ? `UPDATE "conversations"."deliverables" SET "is_primary" = ("id" = $2)
              WHERE "message_id" = $1 AND "is_primary" <> ("id" = $2)`
          : `UPDATE "conversations"."deliverables" AS d SET "is_primary" = (d."id" = chosen."id")
               FROM (SELECT "id" FROM "conversations"."deliverables" WHERE "message_id" = $1
                      ORDER BY "is_primary" DESC, "created_at", "id" LIMIT 1) AS chosen
              WHERE d."message_id" = $1 AND d."is_primary" <> (d."id" = chosen."id")`,
        file.primary ? [runId, id] : [runId],
      );
      const rows = (await manager.query(`${DELIVERABLE_ROW} WHERE "id" = $1`, [id])) as DeliverableRow[];
      return { deliverable: toDeliverable(rows[0] as DeliverableRow), replacedBlobKey: replaced[0]?.blob_key ?? null };
    });
  }

  /** The turn's output files, in the order they were (last) written: the final chunk's and history's `deliverables`. */
  async deliverables(runId: string): Promise<Deliverable[]> {
    const rows = (await this.dataSource.query(
      `${DELIVERABLE_ROW} WHERE "message_id" = $1 ORDER BY "created_at", "id"`,
      [runId],
    )) as DeliverableRow[];
    return rows.map(toDeliverable);
  }

  /** Removes an earlier attempt's files (none of it was shown); returns their blob keys for the caller to delete. */
  async clearDeliverables(runId: string): Promise<string[]> {
    const rows = await modifyReturning<{ blob_key: string }>(
      this.dataSource,
      `DELETE FROM "conversations"."deliverables"
        WHERE "message_id" = $1
          AND EXISTS (SELECT 1 FROM "conversations"."messages" WHERE "id" = $1 AND "processing")
        RETURNING "blob_key"`,
      [runId],
    );
    return rows.map((row) => row.blob_key);
  }

  private async userMessage(
    conversationId: string,
    messageId: string,
  ): Promise<{ text: string; files: StoredMessageFile[]; seq: string } | undefined> {
    const rows = (await this.dataSource.query(
      `SELECT "text", "files", "seq" FROM "conversations"."messages" WHERE "id" = $1 AND "conversation_id" = $2`,
      [messageId, conversationId],
    )) as { text: string; files: StoredMessageFile[] | null; seq: string }[];
    const row = rows[0];
    return row ? { text: row.text, files: row.files ?? [], seq: row.seq } : undefined;
  }

  /** Uploads' blobs, read as the turn's owner; null when deleted since. Library files are the runtime's to resolve. */
  private async withUploads(files: StoredMessageFile[], userId: string, tenantId: string | null): Promise<TurnFile[]> {
    const uploadIds = files.filter((file) => file.filepath === undefined).map((file) => file.fileId);
    if (uploadIds.length === 0) return files;
    const parameters: unknown[] = [uploadIds];
    const rows = (await this.dataSource.query(
      `SELECT "id", "blob_key", "bytes" FROM "conversations"."files"
       WHERE "id" = ANY($1::uuid[]) AND ${ownedBy({ userId, tenantId }, parameters)} AND "state" = 'stored'`,
      parameters,
    )) as { id: string; blob_key: string; bytes: string }[];
    const stored = new Map(rows.map((row) => [row.id, row]));
    return files.map((file) => {
      if (file.filepath !== undefined) return file;
      const row = stored.get(file.fileId);
      return { ...file, blobKey: row?.blob_key ?? null, ...(row ? { bytes: Number(row.bytes) } : {}) };
    });
  }

  /** The question the user has now answered: its `pending` task is completed. */
  private async answerPendingTask(messageId: string, callId: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE "conversations"."tasks" SET "status" = 'completed', "updated_at" = now()
       WHERE "message_id" = $1 AND "call_id" = $2 AND "status" = 'pending'`,
      [messageId, callId],
    );
  }

  private async earlierMessages(conversationId: string, beforeSeq: string): Promise<EarlierRow[]> {
    const rows = (await this.dataSource.query(
      `SELECT "id", "sender", "text", "files", "pending_interaction" FROM "conversations"."messages"
       WHERE "conversation_id" = $1 AND "seq" < $2
       ORDER BY "seq" DESC LIMIT $3`,
      [conversationId, beforeSeq, HISTORY_LIMIT],
    )) as EarlierRow[];
    return rows.reverse();
  }
}
