import { type DataSource } from 'typeorm';
import { vectorToBytes } from './embeddings-client';
import { type MemoryScope } from './memory-entry.entity';
import { type MemoryVisibility } from './memory-vector-index';

export interface MemoryItem {
  id: string;
  /** Null: shared by every tenant. */
  tenantId: string | null;
  scope: MemoryScope;
  orgId: string | null;
  jobRole: string | null;
  title: string;
  text: string;
  source: string | null;
  key: string | null;
  embeddingModel: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** An item found by full-text search, with its rank in [0, 1). */
export interface RankedItem extends MemoryItem {
  textRank: number;
}

/** An item to write: without the database's timestamps, with its embedding. */
export interface StoredItem extends Omit<MemoryItem, 'createdAt' | 'updatedAt'> {
  embedding: Float32Array | null;
}

interface ItemRow {
  id: string;
  tenant_id: string | null;
  scope: MemoryScope;
  org_id: string | null;
  job_role: string | null;
  title: string;
  content: string;
  source: string | null;
  key: string | null;
  embedding_model: string | null;
  created_at: Date;
  updated_at: Date;
  text_rank?: number;
}

const COLUMNS = `e."id", e."tenant_id", e."scope", e."org_id", e."job_role", e."title", e."content", e."source", e."key",
  e."embedding_model", e."created_at", e."updated_at"`;

// $1 tenant, $2 organization, $3 role: the caller's tenant's items and the shared ones; global always,
// organization and role items only for the organization or role asked for.
const VISIBLE = `(e."tenant_id" IS NULL OR e."tenant_id" = $1)
  AND (e."scope" = 'global' OR (e."scope" = 'organization' AND e."org_id" = $2) OR (e."scope" = 'role' AND e."job_role" = $3))`;

const visibilityParams = (visibility: MemoryVisibility) => [
  visibility.tenantId,
  visibility.orgId ?? null,
  visibility.jobRole ?? null,
];

/** The only place that queries `memory.entries`. */
export class MemoryRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Full-text matches (`simple`, web search syntax), best first; ts_rank normalization 32 keeps rank in [0, 1). */
  async textMatches(visibility: MemoryVisibility, text: string, limit: number): Promise<RankedItem[]> {
    const rows = (await this.dataSource.query(
      `SELECT ${COLUMNS}, ts_rank(e."search", q, 32) AS "text_rank"
       FROM "memory"."entries" AS e, websearch_to_tsquery('simple', $4) AS q
       WHERE e."search" @@ q AND ${VISIBLE}
       ORDER BY "text_rank" DESC, e."created_at" DESC, e."id"
       LIMIT $5`,
      [...visibilityParams(visibility), text, limit],
    )) as ItemRow[];
    return rows.map((row) => ({ ...toItem(row), textRank: Number(row.text_rank) }));
  }

  /** The visible items among `ids` (an item deleted or changed since the vector index saw it is left out). */
  async visibleByIds(visibility: MemoryVisibility, ids: readonly string[]): Promise<MemoryItem[]> {
    if (ids.length === 0) return [];
    const rows = (await this.dataSource.query(
      `SELECT ${COLUMNS} FROM "memory"."entries" AS e WHERE e."id" = ANY($4::uuid[]) AND ${VISIBLE}`,
      [...visibilityParams(visibility), ids],
    )) as ItemRow[];
    return rows.map(toItem);
  }

  /** Inserts the items; an item with a `key` already stored replaces that one (keeping its id and creation time). */
  async save(items: readonly StoredItem[]): Promise<{ inserted: number; replaced: number }> {
    if (items.length === 0) return { inserted: 0, replaced: 0 };
    const rows = (await this.dataSource.query(
      `INSERT INTO "memory"."entries" ("id", "tenant_id", "scope", "org_id", "job_role", "title", "content", "source",
         "key", "embedding", "embedding_model", "created_at", "updated_at")
       SELECT i."id", i."tenant_id", i."scope", i."org_id", i."job_role", i."title", i."content", i."source", i."key",
              decode(i."embedding", 'base64'), i."embedding_model", now(), now()
       FROM jsonb_to_recordset($1::jsonb) AS i("id" uuid, "tenant_id" text, "scope" text, "org_id" text, "job_role" text,
         "title" text, "content" text, "source" text, "key" text, "embedding" text, "embedding_model" text)
       ON CONFLICT ("key") DO UPDATE SET "tenant_id" = EXCLUDED."tenant_id", "scope" = EXCLUDED."scope",
         "org_id" = EXCLUDED."org_id", "job_role" = EXCLUDED."job_role", "title" = EXCLUDED."title",
         "content" = EXCLUDED."content", "source" = EXCLUDED."source", "embedding" = EXCLUDED."embedding",
         "embedding_model" = EXCLUDED."embedding_model", "updated_at" = now()
       RETURNING (xmax = 0) AS "inserted"`,
      [
        JSON.stringify(
          items.map((item) => ({
            id: item.id,
            tenant_id: item.tenantId,
            scope: item.scope,
            org_id: item.orgId,
            job_role: item.jobRole,
            title: item.title,
            content: item.text,
            source: item.source,
            key: item.key,
            embedding: item.embedding ? vectorToBytes(item.embedding).toString('base64') : null,
            embedding_model: item.embedding ? item.embeddingModel : null,
          })),
        ),
      ],
    )) as { inserted: boolean }[];
    const inserted = rows.filter((row) => row.inserted).length;
    return { inserted, replaced: rows.length - inserted };
  }

  /** Newest first; `tenantId` undefined: every tenant's. */
  async list(filter: { tenantId?: string | null; limit: number }): Promise<MemoryItem[]> {
    const rows = (await this.dataSource.query(
      `SELECT ${COLUMNS} FROM "memory"."entries" AS e
       WHERE ($1::boolean OR e."tenant_id" IS NOT DISTINCT FROM $2)
       ORDER BY e."created_at" DESC, e."id" LIMIT $3`,
      [filter.tenantId === undefined, filter.tenantId ?? null, filter.limit],
    )) as ItemRow[];
    return rows.map(toItem);
  }

  async delete(id: string): Promise<boolean> {
    const [, count] = (await this.dataSource.query(`DELETE FROM "memory"."entries" WHERE "id" = $1`, [id])) as [
      unknown,
      number,
    ];
    return count > 0;
  }
}

function toItem(row: ItemRow): MemoryItem {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    scope: row.scope,
    orgId: row.org_id,
    jobRole: row.job_role,
    title: row.title,
    text: row.content,
    source: row.source,
    key: row.key,
    embeddingModel: row.embedding_model,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}
