import { ApiKeyEntity } from '../keys/api-key.entity';
import { hashApiKey } from '../keys/api-keys.service';
import { ApiKeyCache } from './api-key-cache';

function keyRow(overrides: Partial<ApiKeyEntity> = {}): ApiKeyEntity {
  return Object.assign(new ApiKeyEntity(), {
    id: '6f1c2b1e-0000-4000-8000-000000000001',
    name: 'ci',
    keyHash: hashApiKey('fed_secret'),
    keyHint: 'fed_...cret',
    allowedModels: null,
    rpmLimit: 10,
    tpmLimit: null,
    dailyBudgetUsd: '1.5000',
    allowedNetworks: ['10.0.0.0/8'],
    createdAt: new Date(0),
    expiresAt: null,
    revokedAt: null,
    ...overrides,
  });
}

describe('ApiKeyCache', () => {
  let now: number;
  let row: ApiKeyEntity | null;
  let reads: number;
  let cache: ApiKeyCache;

  beforeEach(() => {
    now = 1_000_000;
    row = keyRow();
    reads = 0;
    cache = new ApiKeyCache(
      {
        findByHash: async (hash: Buffer) => {
          reads++;
          return row && row.keyHash.equals(hash) ? row : null;
        },
      },
      { ttlMs: 30_000, negativeTtlMs: 5_000, staleMs: 300_000, now: () => now },
    );
  });

  it('reads a key once however many requests ask for it at the same time, and turns its limits into a principal', async () => {
    const principals = await Promise.all(Array.from({ length: 10 }, () => cache.find('fed_secret')));
    expect(reads).toBe(1);
    expect(principals[0]).toMatchObject({ kind: 'api-key', rpmLimit: 10, dailyBudgetMicroUsd: 1_500_000 });
    expect(principals[0]?.networks?.check('10.1.2.3')).toBe(true);
  });

  it('serves a known key past its time while reading it again in the background', async () => {
    await cache.find('fed_secret');
    now += 31_000;
    row = keyRow({ revokedAt: new Date() });
    expect(await cache.find('fed_secret')).not.toBeNull();
    await new Promise((resolve) => setImmediate(resolve));
    expect(reads).toBe(2);
    expect(await cache.find('fed_secret')).toBeNull();
  });

  it('forgets a key at once when told it changed, and remembers an unknown key for a few seconds only', async () => {
    await cache.find('fed_secret');
    row = keyRow({ revokedAt: new Date() });
    cache.invalidate(row.id);
    expect(await cache.find('fed_secret')).toBeNull();
    expect(await cache.find('fed_unknown')).toBeNull();
    expect(await cache.find('fed_unknown')).toBeNull();
    const readsBefore = reads;
    now += 6_000;
    await cache.find('fed_unknown');
    expect(reads).toBe(readsBefore + 1);
  });

  it('refuses an expired key without reading it again', async () => {
    row = keyRow({ expiresAt: new Date(now + 1000) });
    expect(await cache.find('fed_secret')).not.toBeNull();
    now += 2000;
    expect(await cache.find('fed_secret')).toBeNull();
  });
});
