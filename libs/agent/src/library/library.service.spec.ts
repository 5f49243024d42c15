import { useTestDatabase, schemaDrift } from '@fed/persistence/testing';
import { FsBlobStore } from '@fed/storage';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { LibraryAdminService, libraryBlobKey } from './library-admin.service';
import { libraryEntities } from './library.entity';
import { LibraryError } from './library.errors';
import { LibraryRepository } from './library.repository';
import { isLibraryFilepath } from './library.rules';
import { LibraryService } from './library.service';

describe('the library table', () => {
  it('matches its entity (migrations and entities have not drifted)', async () => {
    expect(await schemaDrift(libraryEntities)).toEqual([]);
  });
});

describe('library filepaths', () => {
  it.each(['guides/style.md', 'a', 'A-Z_0.9/x', 'x'.repeat(255)])('accepts %s', (filepath) => {
    expect(isLibraryFilepath(filepath)).toBe(true);
  });

  it.each(['', '../etc/passwd', 'a/../b', 'a//b', '/abs', 'trailing/', 'sp ace', 'ü.md', './x', 'x'.repeat(256)])(
    'refuses %j',
    (filepath) => {
      expect(isLibraryFilepath(filepath)).toBe(false);
    },
  );
});

describe('library service', () => {
  const database = useTestDatabase({ entities: libraryEntities });
  let dir: string;
  let blobs: FsBlobStore;
  let admin: LibraryAdminService;
  let library: LibraryService;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'fed-library-'));
    blobs = new FsBlobStore(dir);
    await blobs.prepare();
    const repository = new LibraryRepository(database.dataSource);
    admin = new LibraryAdminService(repository, blobs);
    library = new LibraryService(repository);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const refusal = async (work: Promise<unknown>) => {
    const error = await work.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(LibraryError);
    return (error as LibraryError).code;
  };

  it('stores a file under library/<id>, guesses its type, and refuses a taken filepath leaving no blob', async () => {
    const item = await admin.addFile('docs/guide.md', { description: 'How we write' }, Readable.from(['# Guide']));
    expect(item).toMatchObject({ kind: 'file', title: 'guide.md', mimeType: 'text/markdown', bytes: '7' });
    expect(item.blobKey).toBe(libraryBlobKey(item.id));
    expect(await blobs.stat(libraryBlobKey(item.id))).toMatchObject({ bytes: 7 });

    expect(await refusal(admin.addFile('docs/guide.md', {}, Readable.from(['again'])))).toBe('filepath_exists');
    const keys: string[] = [];
    for await (const blob of blobs.list('library/')) keys.push(blob.key);
    expect(keys).toEqual([libraryBlobKey(item.id)]);
  });

  it('leaves no blob behind when the row cannot be written, and refuses a mimeType that is not a media type', async () => {
    const failing = new LibraryRepository(database.dataSource);
    failing.insert = () => Promise.reject(new Error('the database went away'));
    await expect(
      new LibraryAdminService(failing, blobs).addFile('docs/lost.md', {}, Readable.from(['lost'])),
    ).rejects.toThrow('the database went away');
    expect(
      await refusal(admin.addFile('docs/typed.md', { mimeType: 'text/plain\r\nX: y' }, Readable.from(['x']))),
    ).toBe('invalid_mime_type');
    const keys: string[] = [];
    for await (const blob of blobs.list('library/')) keys.push(blob.key);
    const rows = (await database.dataSource.query(`SELECT "blob_key" FROM "agent"."library_items"`)) as {
      blob_key: string | null;
    }[];
    expect(keys.sort()).toEqual(rows.flatMap((row) => (row.blob_key ? [row.blob_key] : [])).sort());
  });

  it('refuses a bad filepath, title or template before storing anything', async () => {
    expect(await refusal(admin.addFile('../x', {}, Readable.from(['x'])))).toBe('invalid_filepath');
    expect(await refusal(admin.addTemplate('t/ok', { title: ' ', text: 'x' }))).toBe('invalid_title');
    expect(await refusal(admin.addTemplate('t/ok', { title: 'T', text: 'a\u0000b' }))).toBe('invalid_content');
    expect((await admin.list()).map((item) => item.filepath)).not.toContain('t/ok');
  });

  it('lists items in filepath order across pages, templates with their text', async () => {
    await admin.addTemplate('templates/summary', { title: 'Summary', text: 'Summarize: ' });
    await admin.addTemplate('templates/email', { title: 'Email', text: 'Write an email' });
    const first = await library.list({ limit: 2 });
    expect(first.items.map((item) => item.filepath)).toEqual(['docs/guide.md', 'templates/email']);
    expect(first.hasMore).toBe(true);
    const second = await library.list({ limit: 2, cursor: first.cursor });
    expect(second.items.map((item) => [item.filepath, item.content])).toEqual([['templates/summary', 'Summarize: ']]);
    expect(second.hasMore).toBe(false);
    const descending = await library.list({ order: 'desc' });
    expect(descending.items[0]?.filepath).toBe('templates/summary');
  });

  it('resolves the filepaths a chat request names in one call, leaving out unknown ones', async () => {
    const found = await library.resolveFilepaths(['docs/guide.md', 'docs/none.md', '../bad', 'docs/guide.md']);
    expect(found).toEqual([
      { fileId: expect.any(String), filepath: 'docs/guide.md', filename: 'guide.md', mimeType: 'text/markdown' },
    ]);
  });

  it('removes the row, then the blob; an unknown filepath is refused', async () => {
    const item = await admin.addFile('tmp/data.csv', {}, Readable.from(['a,b']));
    await admin.remove('tmp/data.csv');
    expect(await blobs.stat(libraryBlobKey(item.id))).toBeNull();
    expect(await library.resolveFilepaths(['tmp/data.csv'])).toEqual([]);
    expect(await refusal(admin.remove('tmp/data.csv'))).toBe('item_not_found');
  });
});
