import { type DataSource } from 'typeorm';
import { type EmbeddingsClient } from './embeddings-client';
import { type MemoryItem, MemoryRepository } from './memory.repository';
import { MemoryVectorIndex, type MemoryVisibility } from './memory-vector-index';
import { searchableText } from './memory-text';

/** An item found, with its score in [0, 1] (see docs/admin.md, "Shared memory"). */
export interface MemoryHit extends MemoryItem {
  score: number;
}

export interface MemorySearchQuery extends MemoryVisibility {
  text: string;
  limit: number;
}

export const MEMORY_SEARCH_MAX_LIMIT = 50;
/** Candidates each signal brings before fusion. */
const CANDIDATES = 50;
/** Below this cosine similarity, an item is not found by its embedding alone. */
export const MIN_SIMILARITY = 0.3;
/** Longer queries are cut: full-text search gains nothing from them and they cost parsing. */
const MAX_QUERY_LENGTH = 1000;

/** Shared-memory search: full-text rank, fused with embedding similarity when a model is configured. */
export class MemorySearch {
  private readonly repository: MemoryRepository;
  private readonly index: MemoryVectorIndex | undefined;

  constructor(
    dataSource: DataSource,
    private readonly embeddings: EmbeddingsClient,
  ) {
    this.repository = new MemoryRepository(dataSource);
    const model = embeddings.model;
    this.index = model ? new MemoryVectorIndex(dataSource, model) : undefined;
  }

  /** Loads the vector index ahead of the first query (a first load can take seconds). */
  async warm(): Promise<void> {
    await this.index?.refresh();
  }

  /** Best first; a failed query embedding throws MemoryError `upstream_error`/`upstream_timeout`, never returns []. */
  async search(query: MemorySearchQuery, signal?: AbortSignal): Promise<MemoryHit[]> {
    const text = searchableText(query.text, MAX_QUERY_LENGTH);
    const limit = Math.min(Math.max(Math.floor(query.limit) || 1, 1), MEMORY_SEARCH_MAX_LIMIT);
    if (text.length === 0) return [];
    if (!this.index) {
      const matches = await this.repository.textMatches(query, text, limit);
      return matches.map(({ textRank, ...item }) => ({ ...item, score: textRank }));
    }
    const index = this.index;
    const [[vector], matches] = await Promise.all([
      this.embeddings.embed([text], signal),
      this.repository.textMatches(query, text, CANDIDATES),
      index.refresh(),
    ]);
    const byId = new Map<string, { item?: MemoryItem; textRank: number; similarity?: number }>();
    for (const { textRank, ...item } of matches) {
      byId.set(item.id, { item, textRank, similarity: index.similarityOf(item.id, vector) });
    }
    for (const { id, similarity } of index.nearest(vector, query, CANDIDATES, MIN_SIMILARITY)) {
      const known = byId.get(id);
      if (known) known.similarity = similarity;
      else byId.set(id, { textRank: 0, similarity });
    }
    // With an embedding: the mean of text rank and similarity (negative as 0); without: the text rank.
    const ranked = [...byId.entries()]
      .map(([id, found]) => ({
        id,
        found,
        score: found.similarity === undefined ? found.textRank : (found.textRank + Math.max(found.similarity, 0)) / 2,
      }))
      .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
      .slice(0, limit);
    const missing = ranked.filter(({ found }) => !found.item).map(({ id }) => id);
    const fetched = new Map((await this.repository.visibleByIds(query, missing)).map((item) => [item.id, item]));
    return ranked.flatMap(({ id, found, score }) => {
      const item = found.item ?? fetched.get(id);
      return item ? [{ ...item, score }] : [];
    });
  }
}
