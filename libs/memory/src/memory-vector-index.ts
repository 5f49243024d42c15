import { type DataSource } from 'typeorm';
import { bytesToVector } from './embeddings-client';
import { type MemoryScope } from './memory-entry.entity';

/** Which items a search may see: the caller's tenant's and the shared ones; organization and role items on request. */
export interface MemoryVisibility {
  /** Null: shared items (tenant null) only. */
  tenantId: string | null;
  orgId?: string;
  jobRole?: string;
}

export interface VectorMatch {
  id: string;
  /** Cosine similarity, -1 to 1. */
  similarity: number;
}

interface ChangedRow {
  id: string;
  revision: string;
  /** Null: the row was deleted at this revision. */
  tenant_id?: string | null;
  scope?: MemoryScope;
  org_id?: string | null;
  job_role?: string | null;
  embedding?: Buffer | null;
  embedding_model?: string | null;
  deleted: boolean;
}

const SCOPE_CODES: Record<MemoryScope, number> = { global: 0, organization: 1, role: 2 };
const FREE = 255;
const LOAD_PAGE = 5000;

/**
 * One model's embeddings in process (no pgvector): unit vectors scanned whole per query. `refresh()` reads
 * `memory.revision` and, when it moved, the changes since; the counter's row lock makes changes commit in order.
 */
export class MemoryVectorIndex {
  private revision = -1n;
  private dimensions = 0;
  private vectors = new Float32Array(0);
  private capacity = 0;
  private scopes = new Uint8Array(0);
  private ids: (string | undefined)[] = [];
  /** Per slot: the tenant's number (0: shared) and the organization's or role's (0: none), from `codes`. */
  private tenants = new Int32Array(0);
  private labels = new Int32Array(0);
  private readonly codes = new Map<string, number>();
  private readonly slotOf = new Map<string, number>();
  private readonly free: number[] = [];
  private used = 0;
  private refreshing: Promise<void> | null = null;

  constructor(
    private readonly dataSource: DataSource,
    private readonly model: string,
  ) {}

  get size(): number {
    return this.slotOf.size;
  }

  /** Brings the index up to the database's latest committed revision (concurrent callers share one pass). */
  refresh(): Promise<void> {
    this.refreshing ??= this.catchUp().finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  /** The `limit` most similar visible items with similarity at least `minSimilarity`, best first. */
  nearest(query: Float32Array, visibility: MemoryVisibility, limit: number, minSimilarity: number): VectorMatch[] {
    if (query.length !== this.dimensions || this.slotOf.size === 0) return [];
    const unit = normalized(query);
    if (!unit) return [];
    // Numbers that match no slot (-1) for what the caller did not ask for or the index never saw.
    const tenant = visibility.tenantId === null ? -1 : (this.codes.get(`t:${visibility.tenantId}`) ?? -1);
    const org = visibility.orgId === undefined ? -1 : (this.codes.get(`o:${visibility.orgId}`) ?? -1);
    const role = visibility.jobRole === undefined ? -1 : (this.codes.get(`r:${visibility.jobRole}`) ?? -1);
    const { dimensions, vectors, scopes, tenants, labels, used } = this;
    const best: VectorMatch[] = [];
    let floor = minSimilarity;
    for (let slot = 0; slot < used; slot++) {
      const scope = scopes[slot];
      if (scope === FREE) continue;
      const owner = tenants[slot];
      if (owner !== 0 && owner !== tenant) continue;
      if (scope === 1 ? labels[slot] !== org : scope === 2 ? labels[slot] !== role : false) continue;
      const base = slot * dimensions;
      let a = 0;
      let b = 0;
      let i = 0;
      for (; i + 1 < dimensions; i += 2) {
        a += vectors[base + i] * unit[i];
        b += vectors[base + i + 1] * unit[i + 1];
      }
      if (i < dimensions) a += vectors[base + i] * unit[i];
      const dot = a + b;
      if (dot < floor) continue;
      insertRanked(best, { id: this.ids[slot] as string, similarity: dot }, limit);
      if (best.length === limit) floor = Math.max(floor, best[limit - 1].similarity);
    }
    return best;
  }

  /** The similarity of one item to the query; undefined when it has no vector of this model. */
  similarityOf(id: string, query: Float32Array): number | undefined {
    const slot = this.slotOf.get(id);
    const unit = query.length === this.dimensions ? normalized(query) : undefined;
    if (slot === undefined || !unit) return undefined;
    let dot = 0;
    const base = slot * this.dimensions;
    for (let i = 0; i < this.dimensions; i++) dot += this.vectors[base + i] * unit[i];
    return dot;
  }

  private async catchUp(): Promise<void> {
    const [{ value }] = (await this.dataSource.query(`SELECT "value" FROM "memory"."revision"`)) as { value: string }[];
    if (BigInt(value) === this.revision) return;
    // One snapshot: the counter and every change up to it.
    const { latest, changes } = await this.dataSource.transaction('REPEATABLE READ', async (manager) => {
      const [{ value: latest }] = (await manager.query(`SELECT "value" FROM "memory"."revision"`)) as {
        value: string;
      }[];
      const since = String(this.revision);
      // In pages, so a first load is never one result held whole in memory twice.
      const written: ChangedRow[] = [];
      for (let after = since; ;) {
        const page = (await manager.query(
          `SELECT "id", "revision", "tenant_id", "scope", "org_id", "job_role", "embedding", "embedding_model", false AS "deleted"
           FROM "memory"."entries" WHERE "revision" > $1 ORDER BY "revision" LIMIT ${LOAD_PAGE}`,
          [after],
        )) as ChangedRow[];
        for (const row of page) written.push(this.compact(row));
        if (page.length < LOAD_PAGE) break;
        after = page[page.length - 1].revision;
      }
      // A first load reads the rows that exist: deletions matter only to an index that holds rows.
      const deleted: ChangedRow[] = [];
      for (let after = since; this.revision >= 0n;) {
        const page = (await manager.query(
          `SELECT "id", "revision", true AS "deleted" FROM "memory"."deleted_entries"
           WHERE "revision" > $1 ORDER BY "revision" LIMIT ${LOAD_PAGE}`,
          [after],
        )) as ChangedRow[];
        deleted.push(...page);
        if (page.length < LOAD_PAGE) break;
        after = page[page.length - 1].revision;
      }
      return { latest, changes: [...written, ...deleted] as (ChangedRow & { vector?: Float32Array })[] };
    });
    changes.sort((a, b) => (BigInt(a.revision) < BigInt(b.revision) ? -1 : 1));
    for (const change of changes) this.apply(change);
    this.revision = BigInt(latest);
  }

  // A row keeps only what the index needs: its vector, decoded once (not the driver's Buffer of it).
  private compact(row: ChangedRow): ChangedRow & { vector?: Float32Array } {
    const { embedding, ...rest } = row;
    return embedding && row.embedding_model === this.model ? { ...rest, vector: bytesToVector(embedding) } : rest;
  }

  private apply(change: ChangedRow & { vector?: Float32Array }): void {
    this.remove(change.id);
    if (change.deleted || !change.vector) return;
    const vector = normalized(change.vector);
    if (!vector) return;
    // The first vector fixes the size; vectors of another size (a changed MEMORY_EMBEDDING_DIMENSIONS) are left out.
    if (this.dimensions === 0) this.dimensions = vector.length;
    if (vector.length !== this.dimensions) return;
    const slot = this.free.pop() ?? this.used++;
    if (slot >= this.capacity) this.grow();
    this.vectors.set(vector, slot * this.dimensions);
    this.scopes[slot] = SCOPE_CODES[change.scope ?? 'global'];
    this.ids[slot] = change.id;
    this.tenants[slot] = change.tenant_id ? this.codeOf(`t:${change.tenant_id}`) : 0;
    this.labels[slot] =
      change.scope === 'organization'
        ? this.codeOf(`o:${change.org_id}`)
        : change.scope === 'role'
          ? this.codeOf(`r:${change.job_role}`)
          : 0;
    this.slotOf.set(change.id, slot);
  }

  private remove(id: string): void {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return;
    this.slotOf.delete(id);
    this.scopes[slot] = FREE;
    this.ids[slot] = undefined;
    this.free.push(slot);
  }

  private codeOf(name: string): number {
    let code = this.codes.get(name);
    if (code === undefined) this.codes.set(name, (code = this.codes.size + 1));
    return code;
  }

  private grow(): void {
    const capacity = Math.max(1024, this.capacity * 2);
    const vectors = new Float32Array(capacity * this.dimensions);
    vectors.set(this.vectors);
    const scopes = new Uint8Array(capacity).fill(FREE);
    scopes.set(this.scopes);
    const tenants = new Int32Array(capacity);
    tenants.set(this.tenants);
    const labels = new Int32Array(capacity);
    labels.set(this.labels);
    this.tenants = tenants;
    this.labels = labels;
    this.vectors = vectors;
    this.scopes = scopes;
    this.capacity = capacity;
  }
}

function normalized(vector: Float32Array): Float32Array | undefined {
  let sum = 0;
  for (const value of vector) sum += value * value;
  if (!(sum > 0) || !Number.isFinite(sum)) return undefined;
  const norm = Math.sqrt(sum);
  return vector.map((value) => value / norm);
}

function insertRanked(best: VectorMatch[], match: VectorMatch, limit: number): void {
  let at = best.length;
  while (at > 0 && best[at - 1].similarity < match.similarity) at--;
  if (at >= limit) return;
  best.splice(at, 0, match);
  if (best.length > limit) best.pop();
}
