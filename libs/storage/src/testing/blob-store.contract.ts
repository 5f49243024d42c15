import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import { BlobNotFoundError, type BlobStore, BlobTooLargeError } from '../ports/blob-store';

export interface BlobStoreHarness {
  store: BlobStore;
  /** Temporary files, pending multipart uploads. */
  leftovers(): Promise<number>;
  close(): Promise<void>;
}

const MB = 1024 * 1024;

async function bytesOf(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

/** So that a failure does not print megabytes. */
const digest = (bytes: Buffer) => ({ bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });

async function expectBytes(stream: Readable, expected: Buffer): Promise<void> {
  expect(digest(await bytesOf(stream))).toEqual(digest(expected));
}

/** As a socket would deliver it. */
function chunked(data: Buffer): Readable {
  const chunks: Buffer[] = [];
  for (let offset = 0; offset < data.length; offset += 64 * 1024)
    chunks.push(data.subarray(offset, offset + 64 * 1024));
  return Readable.from(chunks, { objectMode: false });
}

function generated(total: number): { body: Readable; produced(): number } {
  let produced = 0;
  const body = new Readable({
    read() {
      if (produced >= total) return void this.push(null);
      const size = Math.min(64 * 1024, total - produced);
      produced += size;
      this.push(Buffer.alloc(size, 0x61));
    },
  });
  return { body, produced: () => produced };
}

function failingAfter(before: number, error: Error): Readable {
  const { body, produced } = generated(Number.MAX_SAFE_INTEGER);
  const failing = new PassThrough();
  body.on('data', (chunk: Buffer) => {
    if (produced() > before) {
      body.pause();
      failing.destroy(error);
    } else if (!failing.write(chunk)) {
      body.pause();
      failing.once('drain', () => body.resume());
    }
  });
  failing.on('close', () => body.destroy());
  return failing;
}

async function keysOf(store: BlobStore, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const info of store.list(prefix)) keys.push(info.key);
  return keys.sort();
}

/** The behaviour every BlobStore promises (ports/blob-store.ts), run by each adapter's spec. */
export function blobStoreContract(name: string, setup: () => Promise<BlobStoreHarness>): void {
  describe(`the ${name} blob store (contract)`, () => {
    let harness: BlobStoreHarness;
    let store: BlobStore;
    let prefix: string;

    beforeAll(async () => {
      harness = await setup();
      store = harness.store;
    });
    afterAll(() => harness?.close());
    beforeEach(() => {
      prefix = `t-${randomUUID()}/`;
    });

    const expectNothingAt = async (key: string) => {
      expect(await store.stat(key)).toBeNull();
      await expect(store.get(key)).rejects.toBeInstanceOf(BlobNotFoundError);
      expect(await keysOf(store, prefix)).toEqual([]);
      expect(await harness.leftovers()).toBe(0);
    };

    it('gives back exactly the bytes written, several MB streamed in chunks', async () => {
      const data = randomBytes(6 * MB + 123);
      const key = `${prefix}blob`;
      expect(await store.put(key, chunked(data), { contentType: 'application/octet-stream' })).toEqual({
        key,
        bytes: data.length,
      });
      await expectBytes(await store.get(key), data);
    });

    it('stores an empty body as a blob of 0 bytes', async () => {
      const key = `${prefix}empty`;
      expect(await store.put(key, Readable.from([]))).toEqual({ key, bytes: 0 });
      expect(await bytesOf(await store.get(key))).toHaveLength(0);
      expect((await store.stat(key))?.bytes).toBe(0);
    });

    it('replaces what was under the key', async () => {
      const key = `${prefix}replaced`;
      await store.put(key, chunked(randomBytes(300_000)));
      const second = randomBytes(1000);
      await store.put(key, chunked(second));
      await expectBytes(await store.get(key), second);
      expect((await store.stat(key))?.bytes).toBe(1000);
    });

    it('reads inclusive byte ranges: the first byte, the last byte, the middle', async () => {
      const data = randomBytes(100_000);
      const key = `${prefix}ranged`;
      await store.put(key, chunked(data));
      await expectBytes(await store.get(key, { start: 0, end: 0 }), data.subarray(0, 1));
      await expectBytes(await store.get(key, { start: 99_999, end: 99_999 }), data.subarray(99_999));
      await expectBytes(await store.get(key, { start: 1000, end: 2999 }), data.subarray(1000, 3000));
      // As in HTTP: an end past the last byte stops there; a start past it gives nothing.
      await expectBytes(await store.get(key, { start: 99_000, end: 200_000 }), data.subarray(99_000));
      await expectBytes(await store.get(key, { start: 100_000, end: 100_010 }), Buffer.alloc(0));
    });

    it('refuses a range whose end comes before its start', async () => {
      const key = `${prefix}ranged`;
      await store.put(key, chunked(randomBytes(10)));
      await expect(store.get(key, { start: 5, end: 4 })).rejects.toThrow(RangeError);
      await expect(store.get(key, { start: -1, end: 4 })).rejects.toThrow(RangeError);
    });

    it('answers a missing key with BlobNotFoundError from get() and null from stat()', async () => {
      const key = `${prefix}never-written`;
      const error = await store.get(key).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BlobNotFoundError);
      expect((error as BlobNotFoundError).key).toBe(key);
      await expect(store.get(key, { start: 0, end: 10 })).rejects.toBeInstanceOf(BlobNotFoundError);
      expect(await store.stat(key)).toBeNull();
    });

    it('states the size and age of a blob', async () => {
      const key = `${prefix}stated`;
      const before = Date.now();
      await store.put(key, chunked(randomBytes(4321)));
      const info = await store.stat(key);
      expect(info).toMatchObject({ key, bytes: 4321 });
      // Object stores keep whole seconds.
      expect(info?.lastModified.getTime()).toBeGreaterThanOrEqual(before - 2000);
      expect(info?.lastModified.getTime()).toBeLessThanOrEqual(Date.now() + 2000);
    });

    it('deletes idempotently', async () => {
      const key = `${prefix}deleted`;
      await store.put(key, chunked(randomBytes(10)));
      await store.delete(key);
      await store.delete(key);
      await store.delete(`${prefix}never-written`);
      expect(await store.stat(key)).toBeNull();
      await expect(store.get(key)).rejects.toBeInstanceOf(BlobNotFoundError);
    });

    it('lists every blob whose key starts with the prefix', async () => {
      const keys = [`${prefix}a/1`, `${prefix}a/2`, `${prefix}a/deep/3`, `${prefix}ab`, `${prefix}b/1`];
      for (const key of keys) await store.put(key, chunked(randomBytes(7)));
      expect(await keysOf(store, `${prefix}a/`)).toEqual([`${prefix}a/1`, `${prefix}a/2`, `${prefix}a/deep/3`]);
      expect(await keysOf(store, `${prefix}a`)).toEqual([
        `${prefix}a/1`,
        `${prefix}a/2`,
        `${prefix}a/deep/3`,
        `${prefix}ab`,
      ]);
      expect(await keysOf(store, prefix)).toEqual([...keys].sort());
      expect(await keysOf(store, `${prefix}c`)).toEqual([]);
      const [info] = await (async () => {
        const all = [];
        for await (const blob of store.list(`${prefix}b/`)) all.push(blob);
        return all;
      })();
      expect(info).toMatchObject({ key: `${prefix}b/1`, bytes: 7 });
      expect(info.lastModified).toBeInstanceOf(Date);
    });

    it('accepts a body of exactly maxBytes', async () => {
      const key = `${prefix}at-limit`;
      expect(await store.put(key, chunked(randomBytes(MB)), { maxBytes: MB })).toEqual({ key, bytes: MB });
    });

    it('fails with BlobTooLargeError as soon as maxBytes is crossed, not after reading the body, and leaves nothing', async () => {
      const key = `${prefix}too-large`;
      const { body, produced } = generated(50 * MB);
      const error = await store.put(key, body, { maxBytes: MB }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BlobTooLargeError);
      expect((error as BlobTooLargeError).limit).toBe(MB);
      expect(produced()).toBeLessThan(4 * MB);
      expect(body.destroyed).toBe(true);
      await expectNothingAt(key);
    });

    it('keeps the old blob when a replacement fails', async () => {
      const key = `${prefix}kept`;
      const old = randomBytes(2000);
      await store.put(key, chunked(old));
      await expect(store.put(key, generated(3 * MB).body, { maxBytes: MB })).rejects.toBeInstanceOf(BlobTooLargeError);
      await expectBytes(await store.get(key), old);
      expect(await harness.leftovers()).toBe(0);
    });

    it('rejects with the error of a body that fails midway (a cut-off upload) and leaves nothing', async () => {
      const key = `${prefix}cut-off`;
      // Past the first 5 MB part, so an object store has a multipart upload to abort.
      const cutOff = new Error('the client went away');
      await expect(store.put(key, failingAfter(11 * MB, cutOff))).rejects.toBe(cutOff);
      await expectNothingAt(key);
    });

    it('fails an aborted write and leaves nothing', async () => {
      const key = `${prefix}aborted`;
      const body = new PassThrough();
      const controller = new AbortController();
      const writing = store.put(key, body, { signal: controller.signal });
      body.write(randomBytes(7 * MB));
      await new Promise((resolve) => setTimeout(resolve, 200));
      controller.abort(new Error('the request was abandoned'));
      await expect(writing).rejects.toThrow('the request was abandoned');
      expect(body.destroyed).toBe(true);
      await expectNothingAt(key);
    });

    it('fails a write aborted just after its body ended, before the store answered, and leaves nothing', async () => {
      for (const size of [1000, 6 * MB]) {
        const key = `${prefix}aborted-late-${size}`;
        const controller = new AbortController();
        const body = chunked(randomBytes(size));
        body.on('end', () => controller.abort(new Error('abandoned at the end')));
        await expect(store.put(key, body, { signal: controller.signal })).rejects.toThrow('abandoned at the end');
        await expectNothingAt(key);
      }
    });

    it('fails at once a write whose signal is already aborted', async () => {
      const key = `${prefix}pre-aborted`;
      const body = chunked(randomBytes(10));
      await expect(store.put(key, body, { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
      await expectNothingAt(key);
    });

    it('refuses keys that are not relative paths of [A-Za-z0-9._-] segments', async () => {
      const bad = ['', '/abs', '../up', 'a/../b', 'a//b', 'a/', './a', '.tmp/x', 'a/.hidden', 'nul\0', 'sp ace', 'é'];
      for (const key of bad) {
        await expect(store.put(key, chunked(randomBytes(1)))).rejects.toThrow('invalid blob key');
        await expect(store.get(key)).rejects.toThrow('invalid blob key');
        await expect(store.stat(key)).rejects.toThrow('invalid blob key');
        await expect(store.delete(key)).rejects.toThrow('invalid blob key');
      }
      await expect(keysOf(store, '../')).rejects.toThrow('invalid blob key prefix');
    });
  });
}
