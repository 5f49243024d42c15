import { useTestDatabase } from '@fed/persistence/testing';
import { randomUUID } from 'node:crypto';
import { MEMORY_SEARCH_MAX_LIMIT, MemoryStore } from './memory-store';

describe('shared memory search', () => {
  const database = useTestDatabase();
  let store: MemoryStore;

  beforeAll(async () => {
    store = new MemoryStore(database.dataSource);
    const entries: [string | null, string, string][] = [
      ['tenant-1', 'Paris office', 'The Paris office opens at nine. Paris Paris.'],
      [null, 'Offices', 'Every office closes at six, Paris included.'],
      ['tenant-2', 'Paris office', 'Another tenant: not to be seen by tenant-1.'],
      ['tenant-1', 'Rome office', 'The Rome office opens at ten.'],
    ];
    for (const [tenantId, title, content] of entries) {
      await database.dataSource.query(
        `INSERT INTO "memory"."entries" ("id", "tenant_id", "title", "content", "source", "created_at", "updated_at")
         VALUES ($1, $2, $3, $4, 'test', now(), now())`,
        [randomUUID(), tenantId, title, content],
      );
    }
  });

  it("finds the tenant's entries and the shared ones, never another tenant's, best match first", async () => {
    const hits = await store.search('tenant-1', 'paris', 10);
    expect(hits.map((hit) => [hit.tenantId, hit.title])).toEqual([
      ['tenant-1', 'Paris office'],
      [null, 'Offices'],
    ]);
    expect(hits[0].rank).toBeGreaterThan(hits[1].rank);
  });

  it('without a tenant finds only shared entries', async () => {
    expect((await store.search(null, 'paris', 10)).map((hit) => hit.title)).toEqual(['Offices']);
  });

  it('understands web search syntax (phrases, OR, exclusion)', async () => {
    expect((await store.search('tenant-1', '"office opens" -paris', 10)).map((hit) => hit.title)).toEqual([
      'Rome office',
    ]);
    expect((await store.search('tenant-1', 'rome OR six', 10)).map((hit) => hit.title).sort()).toEqual([
      'Offices',
      'Rome office',
    ]);
  });

  it('bounds the number of results', async () => {
    expect(await store.search('tenant-1', 'office', 1)).toHaveLength(1);
    expect((await store.search('tenant-1', 'office', 10_000)).length).toBeLessThanOrEqual(MEMORY_SEARCH_MAX_LIMIT);
  });

  it('answers hostile or empty queries with results or nothing, never an error', async () => {
    for (const query of ['', '   ', '\u0000', '\ud800paris', "'; DROP TABLE x; --", '((( & | !', 'x'.repeat(100_000)]) {
      await expect(store.search('tenant-1', query, 5)).resolves.toBeInstanceOf(Array);
    }
    expect((await store.search('tenant-1', '\ud800paris\u0000', 5)).length).toBeGreaterThan(0);
  });
});
