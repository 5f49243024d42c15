import { CHAT_TURN_DEFAULTS } from '@fed/contracts';
import { modifyReturning } from '@fed/persistence';
import type { DataSource } from 'typeorm';
import type { MessageFile, PendingInteraction, Sender, TurnOptions } from '../storage';
import type { ClaimedTurn, HistoryMessage, LiveTurn, TaskRecord, TurnEnd, TurnHeartbeat } from './claimed-turn';

/** Earlier messages given to the model with a turn. */
export const HISTORY_LIMIT = 40;

/** Options of a turn admitted before `turn_options` existed (or without them): the chat request's defaults. */
export const DEFAULT_TURN_OPTIONS: TurnOptions = { ...CHAT_TURN_DEFAULTS };

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
  pending_interaction: PendingInteraction | null;
}

/**
 * What agent-runtime reads and writes of a turn, and the only place it touches the conversations
 * tables. Every write is conditional on the turn still being processing, so a turn that was reaped,
 * cancelled at admission or finished by another attempt is never written again.
 */
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
      userMessage: { messageId: row.reply_to ?? '', text: user?.text ?? '', files: user?.files ?? [] },
      history: earlier.map((message): HistoryMessage => ({ sender: message.sender, text: message.text })),
      pendingInteraction,
      cancelRequested: row.cancel_requested,
    };
  }

  /**
   * One statement for every running turn: refreshes `heartbeat_at` and keeps the text shown so far
   * (a crash then loses nothing that was shown). Returns the turns that are still processing.
   */
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

  /** Stores a task's current state: inserted the first time, replaced by later states of the same id. */
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

  /**
   * Ends the turn: stores its outcome, clears `processing` and touches the message and its (active)
   * conversation, in one statement and only while it is processing. False: someone else ended it.
   */
  async finish(runId: string, end: TurnEnd): Promise<boolean> {
    const rows = (await this.dataSource.query(
      `WITH "ended" AS (
         UPDATE "conversations"."messages"
         SET "processing" = false, "unfinished" = $2, "text" = COALESCE($3, "text"), "pending_interaction" = $4,
             "deliverables" = $5, "heartbeat_at" = now(), "updated_at" = now()
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
      ],
    )) as { ended: number }[];
    return rows[0]?.ended === 1;
  }

  private async userMessage(
    conversationId: string,
    messageId: string,
  ): Promise<{ text: string; files: MessageFile[]; seq: string } | undefined> {
    const rows = (await this.dataSource.query(
      `SELECT "text", "files", "seq" FROM "conversations"."messages" WHERE "id" = $1 AND "conversation_id" = $2`,
      [messageId, conversationId],
    )) as { text: string; files: MessageFile[] | null; seq: string }[];
    const row = rows[0];
    return row ? { text: row.text, files: row.files ?? [], seq: row.seq } : undefined;
  }

  /** The last HISTORY_LIMIT messages before `beforeSeq`, oldest first. */
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
      `SELECT "id", "sender", "text", "pending_interaction" FROM "conversations"."messages"
       WHERE "conversation_id" = $1 AND "seq" < $2
       ORDER BY "seq" DESC LIMIT $3`,
      [conversationId, beforeSeq, HISTORY_LIMIT],
    )) as EarlierRow[];
    return rows.reverse();
  }
}
