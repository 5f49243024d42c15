import type { DataSource } from 'typeorm';

/** One entry found by a search, best first. */
export interface MemoryHit {
  id: string;
  /** Null: a shared entry (every tenant's). */
  tenantId: string | null;
  title: string;
  content: string;
  source: string | null;
  updatedAt: Date;
  rank: number;
}

export const MEMORY_SEARCH_MAX_LIMIT = 50;
/** Longer queries are cut: full-text search gains nothing from them and they cost parsing. */
const MAX_QUERY_LENGTH = 1000;

// PostgreSQL text cannot hold NUL, and a lone surrogate cannot be encoded: neither may reach the query.
const UNSENDABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * The shared memory agents search (`search_memory`): a tenant's entries plus the shared ones (tenant
 * null), matched with PostgreSQL full-text search (`simple` dictionary: no language is assumed) and
 * ranked. Nothing writes it yet; the admin APIs will.
 */
export class MemoryStore {
  constructor(private readonly dataSource: DataSource) {}

  async search(tenantId: string | null, query: string, limit: number): Promise<MemoryHit[]> {
    const text = query.slice(0, MAX_QUERY_LENGTH).replace(UNSENDABLE, ' ').trim();
    const bounded = Math.min(Math.max(Math.floor(limit) || 1, 1), MEMORY_SEARCH_MAX_LIMIT);
    if (text.length === 0) return [];
    const rows = (await this.dataSource.query(
      `SELECT e."id", e."tenant_id", e."title", e."content", e."source", e."updated_at",
              ts_rank(to_tsvector('simple', e."title" || ' ' || e."content"), q) AS "rank"
       FROM "memory"."entries" AS e, websearch_to_tsquery('simple', $2) AS q
       WHERE (e."tenant_id" IS NULL OR e."tenant_id" = $1)
         AND to_tsvector('simple', e."title" || ' ' || e."content") @@ q
       ORDER BY "rank" DESC, e."updated_at" DESC, e."id"
       LIMIT $3`,
      [tenantId, text, bounded],
    )) as {
      id: string;
      tenant_id: string | null;
      title: string;
      content: string;
      source: string | null;
      updated_at: Date;
      rank: number;
    }[];
    return rows.map((row) => ({
      id: row.id,
      tenantId: row.tenant_id,
      title: row.title,
      content: row.content,
      source: row.source,
      updatedAt: row.updated_at,
      rank: Number(row.rank),
    }));
  }
}
