import 'reflect-metadata';
import { LibrarySweepJob, libraryAdminServiceFor, libraryEntities } from '@fed/agent';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { FsBlobStore } from '@fed/storage';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { type RunningChatService, bootChatService } from './testing/boot-chat-service';

interface LibraryBody {
  items: Record<string, unknown>[];
  hasMore: boolean;
  cursor?: string;
  error?: { code: string };
}

describe('chat-service library (GET /v1/library, SaaS only)', () => {
  let database: TestDatabase;
  let blobDir: string;
  let blobs: FsBlobStore;
  let saas: RunningChatService;
  let marketplace: RunningChatService;

  const get = async (stack: RunningChatService, query: string, token: string) => {
    const res = await fetch(`${stack.api}/v1/library${query}`, { headers: { Authorization: `Bearer ${token}` } });
    return { status: res.status, body: (await res.json()) as LibraryBody };
  };

  beforeAll(async () => {
    database = await createTestDatabase({ entities: libraryEntities });
    blobDir = await mkdtemp(path.join(tmpdir(), 'fed-library-http-'));
    blobs = new FsBlobStore(blobDir);
    await blobs.prepare();
    const admin = libraryAdminServiceFor(database.dataSource, blobs);
    await admin.addFile(
      'guides/style.md',
      { title: 'Style guide', description: 'How we write' },
      Readable.from(['# Style\n']),
    );
    await admin.addTemplate('templates/summary', { title: 'Summary', text: 'Summarize the attached file.' });
    await admin.addFile('data/prices.csv', {}, Readable.from(['a,b\n1,2\n']));
    const env = { BLOB_DIR: blobDir };
    saas = await bootChatService({ databaseUrl: database.url, env });
    marketplace = await bootChatService({ databaseUrl: database.url, env: { ...env, EDITION: 'marketplace' } });
  });

  afterAll(async () => {
    await saas?.close();
    await marketplace?.close();
    await database?.drop();
    await rm(blobDir, { recursive: true, force: true });
  });

  it('lists the items with the filepath input_file takes, in filepath order, templates with their text', async () => {
    const { status, body } = await get(saas, '', await saas.user().token());
    expect(status).toBe(200);
    expect(body).toEqual({
      items: [
        {
          filepath: 'data/prices.csv',
          title: 'prices.csv',
          kind: 'file',
          mimeType: 'text/csv',
          bytes: 8,
          createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        },
        {
          filepath: 'guides/style.md',
          title: 'Style guide',
          kind: 'file',
          description: 'How we write',
          mimeType: 'text/markdown',
          bytes: 8,
          createdAt: expect.any(String),
        },
        {
          filepath: 'templates/summary',
          title: 'Summary',
          kind: 'prompt_template',
          mimeType: 'text/plain',
          bytes: 28,
          createdAt: expect.any(String),
          content: 'Summarize the attached file.',
        },
      ],
      hasMore: false,
    });
  });

  it('pages with the cursor of the previous response, and in reverse with order=desc', async () => {
    const token = await saas.user().token();
    const first = await get(saas, '?limit=2', token);
    expect(first.body.items.map((item) => item.filepath)).toEqual(['data/prices.csv', 'guides/style.md']);
    expect(first.body.hasMore).toBe(true);
    const second = await get(saas, `?limit=2&cursor=${encodeURIComponent(first.body.cursor as string)}`, token);
    expect(second.body.items.map((item) => item.filepath)).toEqual(['templates/summary']);
    expect(second.body).not.toHaveProperty('cursor');
    const desc = await get(saas, '?order=desc&limit=1', token);
    expect(desc.body.items[0]?.filepath).toBe('templates/summary');
  });

  it('refuses a bad limit or a foreign cursor with 400', async () => {
    const token = await saas.user().token();
    expect((await get(saas, '?limit=0', token)).body.error?.code).toBe('invalid_parameter');
    expect((await get(saas, '?cursor=abc', token)).status).toBe(400);
    const first = await get(saas, '?limit=1', token);
    const reversed = await get(saas, `?order=desc&cursor=${encodeURIComponent(first.body.cursor as string)}`, token);
    expect(reversed.status).toBe(400);
  });

  it('needs chat:exec (403 without it) and a token (401)', async () => {
    const user = saas.user();
    expect((await get(saas, '', await user.token('openid chat:history'))).status).toBe(403);
    expect((await fetch(`${saas.api}/v1/library`)).status).toBe(401);
  });

  it('answers 404 in the Marketplace edition', async () => {
    const { status, body } = await get(marketplace, '', await marketplace.user().token('openid'));
    expect(status).toBe(404);
    expect(body.error?.code).toBe('not_found');
  });

  it('sweeps library blobs that no item names once older than the sweep age, and keeps item blobs and newer ones', async () => {
    /** A blob under `key` last modified `ageMs` ago. */
    const blobAged = async (key: string, ageMs: number) => {
      await blobs.put(key, Readable.from([Buffer.from(key)]));
      const at = new Date(Date.now() - ageMs);
      await utimes(path.join(blobDir, ...key.split('/')), at, at);
    };
    const twoHours = 2 * 3_600_000;
    const items = await libraryAdminServiceFor(database.dataSource, blobs).list();
    const itemKeys = items.flatMap((item) => (item.blobKey ? [item.blobKey] : []));
    expect(itemKeys).toHaveLength(2);
    for (const key of itemKeys) {
      const at = new Date(Date.now() - twoHours);
      await utimes(path.join(blobDir, ...key.split('/')), at, at);
    }
    // A `library add` that died between its blob and its row, and one uploading right now.
    const orphan = `library/${randomUUID()}`;
    await blobAged(orphan, twoHours);
    const fresh = `library/${randomUUID()}`;
    await blobAged(fresh, 60_000);

    expect(await saas.service.nest.get(LibrarySweepJob).run()).toEqual({ orphanBlobs: 1 });

    expect(await blobs.stat(orphan)).toBeNull();
    expect(await blobs.stat(fresh)).not.toBeNull();
    for (const key of itemKeys) expect(await blobs.stat(key)).not.toBeNull();
    const { body } = await get(saas, '?limit=1', await saas.user().token());
    expect(body.items[0]?.filepath).toBe('data/prices.csv');
  });
});
