import { mkdtemp, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { blobStoreContract } from '../testing/blob-store.contract';
import { FsBlobStore } from './fs-blob-store';

async function temporaryRoot(): Promise<string> {
  return mkdtemp(path.join(tmpdir(), 'fed-blobs-'));
}

blobStoreContract('filesystem', async () => {
  const root = await temporaryRoot();
  const store = new FsBlobStore(path.join(root, 'blobs'));
  await store.prepare();
  return {
    store,
    leftovers: async () => (await readdir(path.join(root, 'blobs', '.tmp'))).length,
    close: () => rm(root, { recursive: true, force: true }),
  };
});

describe('the filesystem blob store', () => {
  let root: string;
  let store: FsBlobStore;

  beforeEach(async () => {
    root = await temporaryRoot();
    store = new FsBlobStore(path.join(root, 'blobs'));
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it('keeps blobs private to the service: directories 0700, files 0600', async () => {
    await store.put('uploads/abc', Readable.from([Buffer.from('secret')]));
    expect((await stat(path.join(root, 'blobs'))).mode & 0o777).toBe(0o700);
    expect((await stat(path.join(root, 'blobs', 'uploads'))).mode & 0o777).toBe(0o700);
    expect((await stat(path.join(root, 'blobs', 'uploads', 'abc'))).mode & 0o777).toBe(0o600);
  });

  it('never lists its temporary files', async () => {
    await store.prepare();
    await writeFile(path.join(root, 'blobs', '.tmp', 'half-written'), 'x');
    await store.put('a', Readable.from([Buffer.from('1')]));
    const keys: string[] = [];
    for await (const info of store.list('')) keys.push(info.key);
    expect(keys).toEqual(['a']);
  });

  it('sweeps temporary files older than the given age and keeps younger ones', async () => {
    await store.prepare();
    const temporary = path.join(root, 'blobs', '.tmp');
    await writeFile(path.join(temporary, 'crashed'), 'x');
    await writeFile(path.join(temporary, 'in-progress'), 'y');
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
    await utimes(path.join(temporary, 'crashed'), twoHoursAgo, twoHoursAgo);
    expect(await store.sweepTemporary(3600_000)).toBe(1);
    expect(await readdir(temporary)).toEqual(['in-progress']);
  });

  it('answers a key that names a directory as missing', async () => {
    await store.put('dir/file', Readable.from([Buffer.from('1')]));
    expect(await store.stat('dir')).toBeNull();
    await expect(store.get('dir')).rejects.toThrow('no blob dir');
    await store.delete('dir');
    expect(await store.stat('dir/file')).not.toBeNull();
  });

  it('keeps reading the bytes it opened when the blob is replaced meanwhile', async () => {
    await store.put('k', Readable.from([Buffer.from('old bytes')]));
    const reading = await store.get('k');
    await store.put('k', Readable.from([Buffer.from('new')]));
    const chunks: Buffer[] = [];
    for await (const chunk of reading) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe('old bytes');
  });
});
