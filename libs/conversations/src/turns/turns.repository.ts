import { modifyReturning, ownedBy } from '@fed/persistence';
import { randomUUID } from 'node:crypto';
import { type DataSource, QueryFailedError } from 'typeorm';
import { type ConversationOwner } from '../conversation-owner';
import { searchConfigOf } from '../search/search-language';
import { type StoredMessageFile, type TurnOptions } from '../storage';
import { NOT_QUEUED, RUNTIME_LOST } from './turn-errors';
import { TurnsError } from './turns.errors';

export interface AdmittedTurn {
  conversationId: string;
  userMessageId: string;
  /** The assistant message: also the run id (queue job and chunk stream). */
  runId: string;
  createdConversation: boolean;
}

export interface NewTurn {
  conversationId?: string;
  title: string;
  text: string;
  files: StoredMessageFile[];
  options: TurnOptions;
}

/** An upload an input_file part may name. */
export interface AttachableFile {
  id: string;
  filename: string;
  mimeType: string;
  width: number | null;
  height: number | null;
}

const ONE_PROCESSING_INDEX = 'messages_one_processing_idx';

/** The only place the turn endpoints query: admission, the turn in progress, cancel, reaping. */
export class TurnsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** One transaction for conversation and messages; a second processing turn violates a unique index (409). */
  async admit(owner: ConversationOwner, turn: NewTurn): Promise<AdmittedTurn | null> {
    // Before the transaction: language detection is CPU work.
    const searchConfig = searchConfigOf(turn.text);
    try {
      return await this.dataSource.transaction(async (manager) => {
        let conversationId = turn.conversationId;
        const createdConversation = conversationId === undefined;
        if (conversationId === undefined) {
          conversationId = randomUUID();
          await manager.query(
            `INSERT INTO "conversations"."conversations" ("id", "user_id", "tenant_id", "title", "created_at", "updated_at")
             VALUES ($1, $2, $3, $4, now(), now())`,
            [conversationId, owner.userId, owner.tenantId, turn.title],
          );
        } else {
          const parameters: unknown[] = [conversationId];
          const locked = await modifyReturning<{ id: string }>(
            manager,
            `UPDATE "conversations"."conversations" SET "updated_at" = now()
             WHERE "id" = $1 AND ${ownedBy(owner, parameters)} RETURNING "id"`,
            parameters,
          );
          if (locked.length === 0) return null;
        }
        const userMessageId = randomUUID();
        const runId = randomUUID();
        await manager.query(
          `INSERT INTO "conversations"."messages"
             ("id", "conversation_id", "user_id", "tenant_id", "sender", "text", "files", "search_config",
              "created_at", "updated_at")
           VALUES ($1, $2, $3, $4, 'User', $5, $6, $7, now(), now())`,
          [
            userMessageId,
            conversationId,
            owner.userId,
            owner.tenantId,
            turn.text,
            jsonOrNull(turn.files),
            searchConfig,
          ],
        );
        await manager.query(
          `INSERT INTO "conversations"."messages"
             ("id", "conversation_id", "user_id", "tenant_id", "sender", "text", "processing", "turn_options", "reply_to",
              "created_at", "updated_at")
           VALUES ($1, $2, $3, $4, 'AI', '', true, $5, $6, now(), now())`,
          [runId, conversationId, owner.userId, owner.tenantId, JSON.stringify(turn.options), userMessageId],
        );
        return { conversationId, userMessageId, runId, createdConversation };
      });
    } catch (error) {
      if (isUniqueViolation(error, ONE_PROCESSING_INDEX)) {
        throw new TurnsError(
          'conversation_processing',
          'the conversation is processing a turn; wait for it or cancel it',
        );
      }
      throw error;
    }
  }

  /** The owner's stored uploads among `fileIds` (UUIDs), in one query; another user's are simply absent. */
  async storedFiles(owner: ConversationOwner, fileIds: readonly string[]): Promise<AttachableFile[]> {
    if (fileIds.length === 0) return [];
    const parameters: unknown[] = [[...fileIds]];
    return (await this.dataSource.query(
      `SELECT "id", "filename", "mime_type" AS "mimeType", "width", "height" FROM "conversations"."files"
       WHERE "id" = ANY($1::uuid[]) AND ${ownedBy(owner, parameters)} AND "state" = 'stored'`,
      parameters,
    )) as AttachableFile[];
  }

  async processingRun(owner: ConversationOwner, conversationId: string): Promise<string | undefined> {
    const parameters: unknown[] = [conversationId];
    const rows = (await this.dataSource.query(
      `SELECT "id" FROM "conversations"."messages"
       WHERE "conversation_id" = $1 AND "processing" AND ${ownedBy(owner, parameters)}`,
      parameters,
    )) as { id: string }[];
    return rows[0]?.id;
  }

  /** Marks the processing turn (all, or `messageId`) as cancelled; returns the run ids marked. */
  async requestCancel(owner: ConversationOwner, conversationId: string, messageId?: string): Promise<string[]> {
    const parameters: unknown[] = [conversationId, messageId ?? null];
    const rows = await modifyReturning<{ id: string }>(
      this.dataSource,
      `UPDATE "conversations"."messages" SET "cancel_requested_at" = COALESCE("cancel_requested_at", now())
       WHERE "conversation_id" = $1 AND "processing" AND ${ownedBy(owner, parameters)}
         AND ($2::uuid IS NULL OR "id" = $2::uuid)
       RETURNING "id"`,
      parameters,
    );
    return rows.map((row) => row.id);
  }

  async hasMessage(owner: ConversationOwner, conversationId: string, messageId: string): Promise<boolean> {
    const parameters: unknown[] = [messageId, conversationId];
    const rows = (await this.dataSource.query(
      `SELECT 1 FROM "conversations"."messages"
       WHERE "id" = $1 AND "conversation_id" = $2 AND ${ownedBy(owner, parameters)}`,
      parameters,
    )) as unknown[];
    return rows.length > 0;
  }

  /** Ends an unclaimed or stale turn as unfinished, atomically: a runtime claiming it meanwhile finds it ended. */
  async endAbandoned(runId: string, staleMs: number): Promise<boolean> {
    const rows = await modifyReturning<{ id: string }>(
      this.dataSource,
      `UPDATE "conversations"."messages" SET "processing" = false, "unfinished" = true, "updated_at" = now()
       WHERE "id" = $1 AND "processing"
         AND ("heartbeat_at" IS NULL OR "heartbeat_at" < now() - make_interval(secs => $2::double precision / 1000))
       RETURNING "id"`,
      [runId, staleMs],
    );
    return rows.length > 0;
  }

  /** Ends the turn of a message whatever its state (admission that could not queue its job). */
  async endNow(runId: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE "conversations"."messages"
       SET "processing" = false, "unfinished" = true, "error" = $2, "updated_at" = now()
       WHERE "id" = $1 AND "processing"`,
      [runId, JSON.stringify(NOT_QUEUED)],
    );
  }

  /** Ends stale (`staleMs`) or never-taken (`unclaimedMs`; 0: all) turns unfinished, atomically; returns them. */
  async reap(staleMs: number, unclaimedMs: number, limit = 100): Promise<string[]> {
    const rows = await modifyReturning<{ id: string }>(
      this.dataSource,
      `UPDATE "conversations"."messages"
       SET "processing" = false, "unfinished" = true, "error" = $4, "updated_at" = now()
       WHERE "id" IN (
         SELECT "id" FROM "conversations"."messages"
         WHERE "processing" AND (
           ("heartbeat_at" IS NOT NULL AND "heartbeat_at" < now() - make_interval(secs => $1::double precision / 1000))
           OR ("heartbeat_at" IS NULL AND "created_at" < now() - make_interval(secs => $2::double precision / 1000)))
         ORDER BY "created_at" LIMIT $3 FOR UPDATE SKIP LOCKED)
         AND "processing"
       RETURNING "id"`,
      [staleMs, unclaimedMs, limit, JSON.stringify(RUNTIME_LOST)],
    );
    return rows.map((row) => row.id);
  }
}

function jsonOrNull(value: unknown[]): string | null {
  return value.length === 0 ? null : JSON.stringify(value);
}

function isUniqueViolation(error: unknown, constraint: string): boolean {
  if (!(error instanceof QueryFailedError)) return false;
  const driverError = error.driverError as { code?: string; constraint?: string };
  return driverError.code === '23505' && driverError.constraint === constraint;
}
