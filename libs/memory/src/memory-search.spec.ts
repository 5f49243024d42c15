import { useTestDatabase } from '@fed/persistence/testing';
import { type EmbeddingsClient } from './embeddings-client';
import { MemoryItems, type NewMemoryItem } from './memory-items';
import { MemoryRepository } from './memory.repository';
import { MEMORY_SEARCH_MAX_LIMIT, MemorySearch } from './memory-search';
import { MemoryError } from './memory.errors';

/** Embeddings by keyword: one axis per word of AXES, so similarity is predictable. */
const AXES = ['paris', 'rome', 'office', 'holiday', 'budget', 'sales', 'engineering', 'weather'];
const keywordEmbeddings = (model = 'kw'): EmbeddingsClient =>
  ({
    model,
    embed: async (texts: readonly string[]) =>
      texts.map((text) => {
        const words = text.toLowerCase();
        const vector = Float32Array.from(AXES.map((axis) => (words.includes(axis) ? 1 : 0)));
        vector[AXES.length - 1] += 0.01;
        return vector;
      }),
  }) as unknown as EmbeddingsClient;
const noEmbeddings = { model: undefined, embed: async () => [] } as unknown as EmbeddingsClient;

describe('shared memory search', () => {
  const database = useTestDatabase();

  const add = (items: NewMemoryItem[], embeddings = keywordEmbeddings()) =>
    new MemoryItems(database.dataSource, embeddings).add(items);

  beforeAll(async () => {
    await add([
      {
        tenantId: 'tenant-1',
        title: 'Paris office',
        text: 'The Paris office opens at nine. Paris Paris.',
        scope: 'global',
      },
      { tenantId: null, text: 'Every office closes at six, Paris included.', scope: 'global' },
      { tenantId: 'tenant-2', text: 'Another tenant: Paris office not to be seen by tenant-1.', scope: 'global' },
      { tenantId: 'tenant-1', text: 'The Rome office opens at ten.', scope: 'global' },
      {
        tenantId: 'tenant-1',
        text: 'Sales keeps its Paris budget in the red folder.',
        scope: 'organization',
        orgId: 'sales',
      },
      {
        tenantId: 'tenant-1',
        text: 'Engineers book Paris trips through the portal.',
        scope: 'role',
        jobRole: 'engineer',
      },
    ]);
  });

  const search = (
    memory: MemorySearch,
    text: string,
    visibility: { tenantId: string | null; orgId?: string; jobRole?: string },
  ) => memory.search({ ...visibility, text, limit: 10 });

  it("finds the tenant's items and the shared ones, never another tenant's, best match first (full-text only)", async () => {
    const memory = new MemorySearch(database.dataSource, noEmbeddings);
    const hits = await search(memory, 'paris', { tenantId: 'tenant-1' });
    expect(hits.map((hit) => [hit.tenantId, hit.text.slice(0, 14)])).toEqual([
      ['tenant-1', 'The Paris offi'],
      [null, 'Every office c'],
    ]);
    expect(hits[0].score).toBeGreaterThan(hits[1].score);
    expect(hits.every((hit) => hit.score > 0 && hit.score < 1)).toBe(true);
  });

  it('adds organization items only for their orgId and role items only for their jobRole', async () => {
    const memory = new MemorySearch(database.dataSource, noEmbeddings);
    const scopes = async (visibility: { tenantId: string | null; orgId?: string; jobRole?: string }) =>
      (await search(memory, 'paris', visibility)).map((hit) => hit.scope).sort();
    expect(await scopes({ tenantId: 'tenant-1', orgId: 'sales' })).toEqual(['global', 'global', 'organization']);
    expect(await scopes({ tenantId: 'tenant-1', orgId: 'other', jobRole: 'engineer' })).toEqual([
      'global',
      'global',
      'role',
    ]);
    expect(await scopes({ tenantId: 'tenant-2', orgId: 'sales', jobRole: 'engineer' })).toEqual(['global', 'global']);
  });

  it('without a tenant finds only shared items', async () => {
    const memory = new MemorySearch(database.dataSource, noEmbeddings);
    expect((await search(memory, 'paris', { tenantId: null })).map((hit) => hit.tenantId)).toEqual([null]);
  });

  it('understands web search syntax (phrases, OR, exclusion)', async () => {
    const memory = new MemorySearch(database.dataSource, noEmbeddings);
    const texts = async (query: string) =>
      (await search(memory, query, { tenantId: 'tenant-1' })).map((hit) => hit.text).sort();
    expect(await texts('"office opens" -paris')).toEqual(['The Rome office opens at ten.']);
    expect(await texts('rome OR six')).toEqual([
      'Every office closes at six, Paris included.',
      'The Rome office opens at ten.',
    ]);
  });

  it('answers hostile or empty queries with results or nothing, never an error', async () => {
    const memory = new MemorySearch(database.dataSource, noEmbeddings);
    for (const query of ['', '   ', '\u0000', '\ud800paris', "'; DROP TABLE x; --", '((( & | !', 'x'.repeat(100_000)]) {
      await expect(search(memory, query, { tenantId: 'tenant-1' })).resolves.toBeInstanceOf(Array);
    }
    expect((await search(memory, '\ud800paris\u0000', { tenantId: 'tenant-1' })).length).toBeGreaterThan(0);
    expect(await memory.search({ tenantId: 'tenant-1', text: 'office', limit: 10_000 })).toHaveLength(3);
    expect(MEMORY_SEARCH_MAX_LIMIT).toBe(50);
  });

  it('finds by embedding what full-text search misses, and fuses both into a score in [0, 1]', async () => {
    const memory = new MemorySearch(database.dataSource, keywordEmbeddings());
    // "budgets" is not a word of any item, but the keyword embedding knows "budget".
    const hits = await search(memory, 'budgets', { tenantId: 'tenant-1', orgId: 'sales' });
    expect(hits.map((hit) => hit.scope)).toEqual(['organization']);
    expect(hits[0].score).toBeGreaterThan(0);
    expect(hits[0].score).toBeLessThanOrEqual(1);
    // Both signals: an item matched by words and by embedding ranks above one matched by words only.
    const both = await search(memory, 'rome office', { tenantId: 'tenant-1' });
    expect(both[0].text).toBe('The Rome office opens at ten.');
  });

  it("follows writes and deletes in its index (no other tenant's item, none deleted)", async () => {
    const memory = new MemorySearch(database.dataSource, keywordEmbeddings());
    expect(await search(memory, 'weather', { tenantId: 'tenant-3' })).toEqual([]);
    await add([{ tenantId: 'tenant-3', text: 'Rain expected: the weather turns.', scope: 'global', key: 'w' }]);
    expect((await search(memory, 'weather', { tenantId: 'tenant-3' })).map((hit) => hit.text)).toEqual([
      'Rain expected: the weather turns.',
    ]);
    // Replaced by key: the same item, now of tenant-4.
    await add([{ tenantId: 'tenant-4', text: 'Sunny weather all week.', scope: 'global', key: 'w' }]);
    expect(await search(memory, 'weather', { tenantId: 'tenant-3' })).toEqual([]);
    const [item] = await search(memory, 'weather', { tenantId: 'tenant-4' });
    expect(item.text).toBe('Sunny weather all week.');
    await new MemoryRepository(database.dataSource).delete(item.id);
    expect(await search(memory, 'weather', { tenantId: 'tenant-4' })).toEqual([]);
  });

  it('never answers an empty list when the embedding fails: the error reaches the caller', async () => {
    const failing = {
      model: 'kw',
      embed: async () => {
        throw new MemoryError('upstream_timeout', 'slow');
      },
    } as unknown as EmbeddingsClient;
    await expect(
      search(new MemorySearch(database.dataSource, failing), 'paris', { tenantId: 'tenant-1' }),
    ).rejects.toMatchObject({
      code: 'upstream_timeout',
    });
  });

  it('refuses items that break the rules, storing none of the batch', async () => {
    const before = (await new MemoryRepository(database.dataSource).list({ limit: 1000 })).length;
    const refusals: [NewMemoryItem, RegExp][] = [
      [{ text: '   ', scope: 'global' }, /text/],
      [{ text: 'a\u0000b', scope: 'global' }, /text/],
      [{ text: 'x'.repeat(8001), scope: 'global' }, /text/],
      [{ text: 'x', scope: 'team' as 'global' }, /scope/],
      [{ text: 'x', scope: 'organization' }, /orgId/],
      [{ text: 'x', scope: 'global', orgId: 'sales' }, /orgId/],
      [{ text: 'x', scope: 'role', jobRole: 'r'.repeat(101) }, /jobRole/],
    ];
    for (const [item, message] of refusals) {
      await expect(add([{ text: 'fine', scope: 'global' }, item])).rejects.toThrow(message);
    }
    expect((await new MemoryRepository(database.dataSource).list({ limit: 1000 })).length).toBe(before);
  });
});
