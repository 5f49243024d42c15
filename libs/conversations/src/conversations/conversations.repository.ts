import { type ConversationOwner, type ListOwner } from '../conversation-owner';
import { ROW_AGENT_ID, listOwnerCondition } from '../list-owner.sql';
import { type PageParams } from '@fed/contracts';
import { modifyReturning, ownedBy } from '@fed/persistence';
import { type DataSource, type EntityManager } from 'typeorm';
import { type ConversationMode, type ConversationRow } from './conversations.dto';

export interface ListedConversation extends ConversationRow {
  /** `updatedAt` to the microsecond, the cursor's key with the id. */
  updatedAtKey: string;
  /** The Marketplace agent of the row's owner key ('' in SaaS). */
  agentId: string;
}

export type RemovalOutcome = 'done' | 'processing' | 'absent';

const tables: Record<ConversationMode, string> = {
  active: '"conversations"."conversations"',
  archive: '"conversations"."archived_conversations"',
};

const ROW = `"id", "title", "created_at" AS "createdAt", "updated_at" AS "updatedAt"`;
const MOVED_COLUMNS = `"id", "user_id", "tenant_id", "title", "created_at", "updated_at"`;

/** `AND` conditions limiting a statement to one owner; none for an operator (`owner` absent). */
function andOwnedBy(owner: ConversationOwner | undefined, parameters: unknown[]): string {
  return owner ? ` AND ${ownedBy(owner, parameters)}` : '';
}

/** Escapes `%`, `_` and the escape character itself, so a title filter matches literally. */
export function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}

/** Both conversation stores; moves are single statements, and every guarding check runs under the row's lock. */
export class ConversationsRepository {
  constructor(private readonly dataSource: DataSource) {}

  list(
    owner: ListOwner,
    mode: ConversationMode,
    filter: { title?: string; page: PageParams },
  ): Promise<ListedConversation[]> {
    const parameters: unknown[] = [];
    let where = listOwnerCondition(owner, parameters);
    if (filter.title !== undefined) {
      parameters.push(likePattern(filter.title));
      where += ` AND "title" ILIKE $${parameters.length} ESCAPE '\\'`;
    }
    const direction = filter.page.order === 'asc' ? 'ASC' : 'DESC';
    const [afterUpdatedAt, afterId] = filter.page.after ?? [];
    if (afterUpdatedAt !== undefined) {
      parameters.push(afterUpdatedAt, afterId);
      const n = parameters.length;
      where += ` AND ("updated_at", "id") ${direction === 'ASC' ? '>' : '<'} ($${n - 1}::timestamptz, $${n}::uuid)`;
    }
    parameters.push(filter.page.limit + 1);
    return this.dataSource.query(
      `SELECT ${ROW}, ${ROW_AGENT_ID},
              to_char("updated_at" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "updatedAtKey"
         FROM ${tables[mode]}
        WHERE ${where}
        ORDER BY "updated_at" ${direction}, "id" ${direction}
        LIMIT $${parameters.length}`,
      parameters,
    );
  }

  async modeOf(owner: ConversationOwner, conversationId: string): Promise<ConversationMode | null> {
    const parameters: unknown[] = [conversationId];
    const owned = andOwnedBy(owner, parameters);
    const rows: { mode: ConversationMode }[] = await this.dataSource.query(
      `SELECT 'active' AS "mode" FROM ${tables.active} WHERE "id" = $1${owned}
       UNION ALL
       SELECT 'archive' FROM ${tables.archive} WHERE "id" = $1${owned}
       LIMIT 1`,
      parameters,
    );
    return rows[0]?.mode ?? null;
  }

  async rename(
    owner: ConversationOwner,
    conversationId: string,
    title: string,
    at: Date,
  ): Promise<ConversationRow | null> {
    const parameters: unknown[] = [conversationId, title, at];
    const rows = await modifyReturning<ConversationRow>(
      this.dataSource,
      `UPDATE ${tables.active} SET "title" = $2, "updated_at" = $3
        WHERE "id" = $1${andOwnedBy(owner, parameters)}
        RETURNING ${ROW}`,
      parameters,
    );
    return rows[0] ?? null;
  }

  /** Deletes an active conversation and everything in it, unless a turn is processing. */
  delete(owner: ConversationOwner, conversationId: string): Promise<RemovalOutcome> {
    return this.whileLocked(owner, conversationId, async (manager) => {
      await manager.query(`DELETE FROM "conversations"."tasks" WHERE "conversation_id" = $1`, [conversationId]);
      await manager.query(`DELETE FROM "conversations"."ui_resources" WHERE "conversation_id" = $1`, [conversationId]);
      // Their blobs go after the commit (ConversationsService.delete).
      await manager.query(`DELETE FROM "conversations"."deliverables" WHERE "conversation_id" = $1`, [conversationId]);
      await manager.query(`DELETE FROM "conversations"."messages" WHERE "conversation_id" = $1`, [conversationId]);
      await manager.query(`DELETE FROM ${tables.active} WHERE "id" = $1`, [conversationId]);
    });
  }

  /** Moves an active conversation to the archive, unless a turn is processing; any owner's without `owner`. */
  archive(conversationId: string, at: Date, owner?: ConversationOwner): Promise<RemovalOutcome> {
    return this.whileLocked(owner, conversationId, async (manager) => {
      await manager.query(
        `WITH "moved" AS (DELETE FROM ${tables.active} WHERE "id" = $1 RETURNING ${MOVED_COLUMNS})
         INSERT INTO ${tables.archive} (${MOVED_COLUMNS}, "archived_at")
         SELECT ${MOVED_COLUMNS}, $2 FROM "moved"`,
        [conversationId, at],
      );
    });
  }

  /** Moves an archived conversation back to the active store; false when it is not in the archive. */
  async restore(conversationId: string, owner?: ConversationOwner): Promise<boolean> {
    const parameters: unknown[] = [conversationId];
    const rows: { id: string }[] = await this.dataSource.query(
      `WITH "moved" AS (
         DELETE FROM ${tables.archive} WHERE "id" = $1${andOwnedBy(owner, parameters)} RETURNING ${MOVED_COLUMNS}
       )
       INSERT INTO ${tables.active} (${MOVED_COLUMNS}) SELECT ${MOVED_COLUMNS} FROM "moved"
       RETURNING "id"`,
      parameters,
    );
    return rows.length === 1;
  }

  /** Archives up to `limit` conversations idle since `cutoff`, after `after` (SKIP LOCKED). */
  archiveIdleBatch(
    cutoff: Date,
    at: Date,
    limit: number,
    after: [string, string] | null,
  ): Promise<{ examined: number; archived: number; last: [string, string] | null }> {
    return this.dataSource.transaction(async (manager) => {
      const parameters: unknown[] = [cutoff, limit];
      let continuing = '';
      if (after) {
        parameters.push(after[0], after[1]);
        continuing = ` AND ("updated_at", "id") > ($3::timestamptz, $4::uuid)`;
      }
      const candidates: { id: string; updatedAtKey: string }[] = await manager.query(
        `SELECT "id", to_char("updated_at" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "updatedAtKey"
           FROM ${tables.active}
          WHERE "updated_at" < $1${continuing}
          ORDER BY "updated_at", "id"
          LIMIT $2
          FOR UPDATE SKIP LOCKED`,
        parameters,
      );
      const lastCandidate = candidates[candidates.length - 1];
      if (!lastCandidate) return { examined: 0, archived: 0, last: null };
      // A new statement sees every turn admitted before the locks were taken; later ones wait for them.
      const moved: { id: string }[] = await manager.query(
        `WITH "moved" AS (
           DELETE FROM ${tables.active} AS "c"
            WHERE "c"."id" = ANY($1::uuid[])
              AND NOT EXISTS (SELECT 1 FROM "conversations"."messages" AS "m"
                               WHERE "m"."conversation_id" = "c"."id" AND "m"."processing")
            RETURNING ${MOVED_COLUMNS}
         )
         INSERT INTO ${tables.archive} (${MOVED_COLUMNS}, "archived_at")
         SELECT ${MOVED_COLUMNS}, $2 FROM "moved"
         RETURNING "id"`,
        [candidates.map((candidate) => candidate.id), at],
      );
      return {
        examined: candidates.length,
        archived: moved.length,
        last: [lastCandidate.updatedAtKey, lastCandidate.id],
      };
    });
  }

  /** Runs `change` under the row lock if no turn is processing; a concurrent admission waits or is seen. */
  private whileLocked(
    owner: ConversationOwner | undefined,
    conversationId: string,
    change: (manager: EntityManager) => Promise<void>,
  ): Promise<RemovalOutcome> {
    return this.dataSource.transaction(async (manager) => {
      const parameters: unknown[] = [conversationId];
      const locked: unknown[] = await manager.query(
        `SELECT "id" FROM ${tables.active} WHERE "id" = $1${andOwnedBy(owner, parameters)} FOR UPDATE`,
        parameters,
      );
      if (locked.length === 0) return 'absent';
      const processing: unknown[] = await manager.query(
        `SELECT 1 FROM "conversations"."messages" WHERE "conversation_id" = $1 AND "processing" LIMIT 1`,
        [conversationId],
      );
      if (processing.length > 0) return 'processing';
      await change(manager);
      return 'done';
    });
  }
}
