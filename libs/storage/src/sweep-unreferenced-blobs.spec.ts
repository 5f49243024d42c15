import { mkdtemp, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { FsBlobStore } from './fs/fs-blob-store';
import { sweepUnreferencedBlobs } from './sweep-unreferenced-blobs';

const HOUR_MS = 3_600_000;

describe('sweepUnreferencedBlobs', () => {
  let root: string;
  let store: FsBlobStore;
  const cutoff = () => new Date(Date.now() - HOUR_MS);

  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'fed-sweep-'));
    store = new FsBlobStore(path.join(root, 'blobs'));
    await store.prepare();
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  /** A blob last modified `ageMs` ago. */
  async function blob(key: string, ageMs = 2 * HOUR_MS): Promise<void> {
    await store.put(key, Readable.from([Buffer.from(key)]));
    const at = new Date(Date.now() - ageMs);
    await utimes(path.join(root, 'blobs', ...key.split('/')), at, at);
  }

  async function keys(prefix = ''): Promise<string[]> {
    const found: string[] = [];
    for await (const info of store.list(prefix)) found.push(info.key);
    return found.sort();
  }

  it('deletes the old blobs under the prefix that no row references, and keeps referenced, new and other blobs', async () => {
    await blob('deliverables/c1/m1/orphan');
    await blob('deliverables/c1/m1/kept');
    await blob('deliverables/c1/m2/fresh', 60_000);
    await blob('uploads/elsewhere');
    const asked: string[][] = [];

    const deleted = await sweepUnreferencedBlobs(store, 'deliverables/', {
      olderThan: cutoff(),
      referenced: async (batch) => {
        asked.push([...batch]);
        return new Set(batch.filter((key) => key.endsWith('/kept')));
      },
    });

    expect(deleted).toBe(1);
    expect(await keys()).toEqual(['deliverables/c1/m1/kept', 'deliverables/c1/m2/fresh', 'uploads/elsewhere']);
    // A blob newer than the age is never even asked about.
    expect(asked.flat().sort()).toEqual(['deliverables/c1/m1/kept', 'deliverables/c1/m1/orphan']);
  });

  it('asks about the keys in batches of batchSize, one call per batch', async () => {
    for (let i = 0; i < 7; i++) await blob(`library/item-${i}`);
    const sizes: number[] = [];

    const deleted = await sweepUnreferencedBlobs(store, 'library/', {
      olderThan: cutoff(),
      batchSize: 3,
      referenced: async (batch) => {
        sizes.push(batch.length);
        return new Set(batch.filter((key) => key.endsWith('-0')));
      },
    });

    expect(sizes).toEqual([3, 3, 1]);
    expect(deleted).toBe(6);
    expect(await keys('library/')).toEqual(['library/item-0']);
  });

  it('stops when shouldStop says so, even inside a batch, leaving the rest for the next sweep', async () => {
    for (let i = 0; i < 6; i++) await blob(`library/item-${i}`);
    let lookups = 0;
    let stopped = false;

    const deleted = await sweepUnreferencedBlobs(store, 'library/', {
      olderThan: cutoff(),
      batchSize: 2,
      shouldStop: () => stopped,
      referenced: async () => {
        // The stop arrives while the second batch is being looked up.
        if (++lookups === 2) stopped = true;
        return new Set();
      },
    });

    expect([deleted, lookups]).toEqual([2, 2]);
    expect(await keys('library/')).toEqual(['library/item-2', 'library/item-3', 'library/item-4', 'library/item-5']);
  });

  it('deletes nothing and asks nothing when it is stopped before it starts', async () => {
    await blob('library/a');
    const referenced = jest.fn(async () => new Set<string>());

    const deleted = await sweepUnreferencedBlobs(store, 'library/', {
      olderThan: cutoff(),
      shouldStop: () => true,
      referenced,
    });

    expect(deleted).toBe(0);
    expect(referenced).not.toHaveBeenCalled();
    expect(await keys()).toEqual(['library/a']);
  });

  it('deletes nothing when the owner lookup fails', async () => {
    await blob('library/a');
    await expect(
      sweepUnreferencedBlobs(store, 'library/', {
        olderThan: cutoff(),
        referenced: () => Promise.reject(new Error('database down')),
      }),
    ).rejects.toThrow('database down');
    expect(await keys()).toEqual(['library/a']);
  });

  it('refuses a prefix that is not one of a valid key', async () => {
    await expect(
      sweepUnreferencedBlobs(store, '../', { olderThan: cutoff(), referenced: async () => new Set() }),
    ).rejects.toThrow('invalid blob key prefix');
  });
});
