import { isStorableText, isUuid } from '@fed/contracts';
import { randomUUID } from 'node:crypto';
import { type DataSource } from 'typeorm';
import { type EmbeddingsClient } from './embeddings-client';
import { MEMORY_SCOPES, type MemoryScope } from './memory-entry.entity';
import { MemoryError } from './memory.errors';
import { type MemoryItem, MemoryRepository, type StoredItem } from './memory.repository';

/** An item to store, as `platformctl memory add|import` and the agent's `save_memory` give it. */
export interface NewMemoryItem {
  text: string;
  scope: MemoryScope;
  /** Required for (and only for) `organization`. */
  orgId?: string | null;
  /** Required for (and only for) `role`. */
  jobRole?: string | null;
  /** Null or absent: shared by every tenant. */
  tenantId?: string | null;
  title?: string | null;
  source?: string | null;
  /** The importer's own id: storing the same key again replaces that item. */
  key?: string | null;
}

export const MAX_ITEM_TEXT = 8000;
const MAX_LABEL = 100;
const MAX_NAME = 200;

/** Stores shared-memory items, embedded through the gateway when an embedding model is configured. */
export class MemoryItems {
  private readonly repository: MemoryRepository;

  constructor(
    dataSource: DataSource,
    private readonly embeddings: EmbeddingsClient,
  ) {
    this.repository = new MemoryRepository(dataSource);
  }

  /** Validates all items first (none stored on `invalid_item`), embeds in batches, stores; repeated key: last wins. */
  async add(
    items: readonly NewMemoryItem[],
    signal?: AbortSignal,
  ): Promise<{ inserted: number; replaced: number; embedded: boolean }> {
    const checked = items.map((item, position) => checkItem(item, items.length > 1 ? position + 1 : undefined));
    const byKey = new Map<string, number>();
    checked.forEach((item, position) => item.key !== null && byKey.set(item.key, position));
    const unique = checked.filter((item, position) => item.key === null || byKey.get(item.key) === position);
    const model = this.embeddings.model;
    const vectors = model
      ? await this.embeddings.embed(
          unique.map((item) => item.text),
          signal,
        )
      : [];
    const stored: StoredItem[] = unique.map((item, position) => ({
      ...item,
      embedding: vectors[position] ?? null,
      embeddingModel: model ?? null,
    }));
    let inserted = 0;
    let replaced = 0;
    // Bounded statements: a large import is not one huge JSON parameter.
    for (let start = 0; start < stored.length; start += 1000) {
      const counts = await this.repository.save(stored.slice(start, start + 1000));
      inserted += counts.inserted;
      replaced += counts.replaced;
    }
    return { inserted, replaced, embedded: model !== undefined };
  }

  list(filter: { tenantId?: string | null; limit: number }): Promise<MemoryItem[]> {
    return this.repository.list(filter);
  }

  delete(id: string): Promise<boolean> {
    if (!isUuid(id)) return Promise.resolve(false);
    return this.repository.delete(id);
  }
}

function checkItem(item: NewMemoryItem, line: number | undefined): Omit<StoredItem, 'embedding' | 'embeddingModel'> {
  const refuse = (message: string) =>
    new MemoryError('invalid_item', line === undefined ? message : `item ${line}: ${message}`);
  const text = typeof item.text === 'string' ? item.text.trim() : '';
  if (text.length === 0 || text.length > MAX_ITEM_TEXT || !isStorableText(text)) {
    throw refuse(`text must be 1-${MAX_ITEM_TEXT} characters without NUL or unpaired surrogates`);
  }
  if (!MEMORY_SCOPES.includes(item.scope)) throw refuse(`scope must be one of ${MEMORY_SCOPES.join(', ')}`);
  const orgId = optional(item.orgId, MAX_LABEL, 'orgId', refuse);
  const jobRole = optional(item.jobRole, MAX_LABEL, 'jobRole', refuse);
  if ((item.scope === 'organization') !== (orgId !== null))
    throw refuse('orgId is required for, and only for, scope organization');
  if ((item.scope === 'role') !== (jobRole !== null)) throw refuse('jobRole is required for, and only for, scope role');
  return {
    id: randomUUID(),
    text,
    scope: item.scope,
    orgId,
    jobRole,
    tenantId: optional(item.tenantId, MAX_NAME, 'tenantId', refuse),
    title: optional(item.title, MAX_NAME, 'title', refuse) ?? '',
    source: optional(item.source, MAX_NAME, 'source', refuse),
    key: optional(item.key, MAX_NAME, 'key', refuse),
  };
}

function optional(value: unknown, max: number, name: string, refuse: (message: string) => MemoryError): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value.trim().length === 0 || value.length > max || !isStorableText(value)) {
    throw refuse(`${name} must be 1-${max} characters without NUL or unpaired surrogates`);
  }
  return value.trim();
}
