import { type PageParams } from '@fed/contracts';
import { modifyReturning, ownedBy } from '@fed/persistence';
import { type DataSource } from 'typeorm';
import { type ConversationOwner, type ListOwner } from '../conversation-owner';
import { ROW_AGENT_ID, listOwnerCondition } from '../list-owner.sql';
import { type FileRow, type ListedFile } from './files.dto';

const TABLE = '"conversations"."files"';
const ROW = `"id", "filename", "bytes", "mime_type" AS "mimeType", "width", "height", "blob_key" AS "blobKey",
             "created_at" AS "createdAt"`;

export interface StoredFacts {
  filename: string;
  bytes: number;
  mimeType: string;
  width: number | null;
  height: number | null;
}

/** Rows of uploaded files; only `stored` rows are ever visible to their owner. */
export class FilesRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Written before the first byte reaches the store; the database's microsecond time keeps uploads in start order. */
  async insertUploading(owner: ConversationOwner, file: { id: string; blobKey: string }): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO ${TABLE} ("id", "user_id", "tenant_id", "filename", "blob_key", "state", "created_at", "touched_at")
       VALUES ($1, $2, $3, '', $4, 'uploading', clock_timestamp(), clock_timestamp())`,
      [file.id, owner.userId, owner.tenantId, file.blobKey],
    );
  }

  /** Completes an upload in one statement; null when its row is gone (swept meanwhile). */
  async markStored(id: string, facts: StoredFacts): Promise<FileRow | null> {
    const rows = await modifyReturning<FileRow>(
      this.dataSource,
      `UPDATE ${TABLE}
          SET "state" = 'stored', "filename" = $2, "bytes" = $3, "mime_type" = $4, "width" = $5, "height" = $6
        WHERE "id" = $1 AND "state" = 'uploading'
        RETURNING ${ROW}`,
      [id, facts.filename, facts.bytes, facts.mimeType, facts.width, facts.height],
    );
    return rows[0] ?? null;
  }

  /** A sign of life of an upload in progress, so the sweep leaves it alone. */
  async touchUploading(id: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE ${TABLE} SET "touched_at" = clock_timestamp() WHERE "id" = $1 AND "state" = 'uploading'`,
      [id],
    );
  }

  /** Removes the row of a failed upload (a stored row is never touched by this). */
  async deleteUploading(id: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM ${TABLE} WHERE "id" = $1 AND "state" = 'uploading'`, [id]);
  }

  list(owner: ListOwner, page: PageParams): Promise<ListedFile[]> {
    const direction = page.order === 'asc' ? 'ASC' : 'DESC';
    const parameters: unknown[] = [page.limit + 1];
    const owned = listOwnerCondition(owner, parameters);
    let after = '';
    if (page.after) {
      parameters.push(page.after[0], page.after[1]);
      const n = parameters.length;
      after = ` AND ("created_at", "id") ${direction === 'ASC' ? '>' : '<'} ($${n - 1}::timestamptz, $${n}::uuid)`;
    }
    return this.dataSource.query(
      `SELECT ${ROW}, ${ROW_AGENT_ID},
              to_char("created_at" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "createdAtKey"
         FROM ${TABLE}
        WHERE ${owned} AND "state" = 'stored'${after}
        ORDER BY "created_at" ${direction}, "id" ${direction}
        LIMIT $1`,
      parameters,
    );
  }

  async find(owner: ConversationOwner, id: string): Promise<FileRow | null> {
    const parameters: unknown[] = [id];
    const rows: FileRow[] = await this.dataSource.query(
      `SELECT ${ROW} FROM ${TABLE} WHERE "id" = $1 AND ${ownedBy(owner, parameters)} AND "state" = 'stored'`,
      parameters,
    );
    return rows[0] ?? null;
  }

  /** Deletes the owner's stored file; its blob key, or null when there was none. */
  async delete(owner: ConversationOwner, id: string): Promise<string | null> {
    const parameters: unknown[] = [id];
    const rows = await modifyReturning<{ blobKey: string }>(
      this.dataSource,
      `DELETE FROM ${TABLE} WHERE "id" = $1 AND ${ownedBy(owner, parameters)} AND "state" = 'stored'
       RETURNING "blob_key" AS "blobKey"`,
      parameters,
    );
    return rows[0]?.blobKey ?? null;
  }

  /** Deletes up to `limit` stale uploads, returning their blob keys; SKIP LOCKED lets instances sweep together. */
  async deleteStaleUploads(cutoff: Date, limit: number): Promise<string[]> {
    const rows = await modifyReturning<{ blobKey: string }>(
      this.dataSource,
      `DELETE FROM ${TABLE}
        WHERE "id" IN (SELECT "id" FROM ${TABLE}
                        WHERE "state" = 'uploading' AND "touched_at" < $1
                        LIMIT $2 FOR UPDATE SKIP LOCKED)
        RETURNING "blob_key" AS "blobKey"`,
      [cutoff, limit],
    );
    return rows.map((row) => row.blobKey);
  }

  async existingIds(ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows: { id: string }[] = await this.dataSource.query(
      `SELECT "id" FROM ${TABLE} WHERE "id" = ANY($1::uuid[])`,
      [ids],
    );
    return new Set(rows.map((row) => row.id));
  }
}
