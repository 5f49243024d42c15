import { type DomainError } from '@fed/contracts';
import { FilesService, FilesSweepJob, filesServiceFor } from '@fed/conversations';
import { useTestDatabase } from '@fed/persistence/testing';
import { BLOB_STORE, type BlobStore } from '@fed/storage';
import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp, rm, utimes } from 'node:fs/promises';
import http from 'node:http';
import { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { deflateSync } from 'node:zlib';
import { DataSource } from 'typeorm';
import { type RunningChatService, type TestUser, bootChatService } from './testing/boot-chat-service';
import { type UploadPart, uploadCutOff, uploadMultipart } from './testing/multipart-upload';

const MiB = 1024 * 1024;
const MAX_UPLOAD_BYTES = 512 * MiB;

interface FileItem {
  fileId: string;
  filename: string;
  bytes: number;
  mimeType: string;
  createdAt: string;
  width?: number;
  height?: number;
}
interface FilePage {
  files: FileItem[];
  hasMore: boolean;
  cursor?: string;
}

/** Deterministic bytes that are not a repeated pattern (a shifted range would not compare equal). */
function patternBytes(size: number, seed = 1): Buffer {
  const bytes = Buffer.alloc(size);
  let state = seed;
  for (let i = 0; i < size; i++) {
    state = (state * 1_103_515_245 + 12_345) >>> 0;
    bytes[i] = state >>> 24;
  }
  return bytes;
}

/** A valid PNG of width x height pixels (grey, 8 bits), built from its chunks. */
function png(width: number, height: number): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (data: Buffer) => {
    let c = 0xffffffff;
    for (const byte of data) c = (crcTable[(c ^ byte) & 0xff] as number) ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const typed = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const checksum = Buffer.alloc(4);
    checksum.writeUInt32BE(crc(typed));
    return Buffer.concat([length, typed, checksum]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 0, 0, 0, 0], 8);
  const rows = Buffer.alloc((width + 1) * height, 0x80);
  for (let y = 0; y < height; y++) rows[y * (width + 1)] = 0;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** `POST/GET/DELETE /v1/files` of document 2 over HTTP, with the service's blob store in a temporary directory. */
describe('chat-service: files', () => {
  const database = useTestDatabase();
  let chat: RunningChatService;
  let store: BlobStore;
  let blobDir: string;
  let alice: TestUser;
  let bob: TestUser;
  let aliceToken: string;

  beforeAll(async () => {
    blobDir = await mkdtemp(path.join(tmpdir(), 'fed-files-'));
    chat = await bootChatService({ databaseUrl: database.url, env: { BLOB_DIR: blobDir } });
    store = chat.service.nest.get<BlobStore>(BLOB_STORE);
    alice = chat.user();
    bob = chat.user();
    aliceToken = await alice.token();
  });

  afterAll(async () => {
    await chat?.close();
    if (blobDir) await rm(blobDir, { recursive: true, force: true });
  });

  const filesUrl = () => `${chat.api}/v1/files`;

  async function upload(parts: UploadPart[], token = aliceToken) {
    return uploadMultipart(filesUrl(), token, parts);
  }

  async function uploadFile(filename: string, content: Buffer, token = aliceToken): Promise<FileItem> {
    const outcome = await upload(
      [
        { name: 'filename', value: filename },
        { name: 'file', filename: 'ignored.bin', content },
      ],
      token,
    );
    expect(outcome.status).toBe(201);
    return outcome.body as unknown as FileItem;
  }

  async function call(method: string, pathAndQuery: string, token = aliceToken, headers: Record<string, string> = {}) {
    return fetch(`${chat.api}/v1/files${pathAndQuery}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...headers },
    });
  }

  const errorCode = async (response: Response) =>
    ((await response.json()) as { error?: { code?: string } }).error?.code;

  async function rowsOf(user: TestUser): Promise<{ id: string; state: string }[]> {
    return chat.service.nest
      .get(DataSource)
      .query(`SELECT "id", "state" FROM "conversations"."files" WHERE "user_id" = $1`, [user.userId]);
  }

  async function uploadKeys(): Promise<string[]> {
    const keys: string[] = [];
    for await (const blob of store.list('uploads/')) keys.push(blob.key);
    return keys;
  }

  async function eventually(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error('condition not reached in time');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  describe('POST /v1/files', () => {
    it('stores the file and answers 201 UploadedFile, whatever the order of file and filename', async () => {
      const content = patternBytes(70_000, 7);
      const fileFirst = await upload([
        { name: 'file', filename: 'a.txt', content },
        { name: 'filename', value: 'notes.txt' },
      ]);
      expect(fileFirst.status).toBe(201);
      expect(fileFirst.body).toEqual({
        fileId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        filename: 'notes.txt',
        bytes: content.length,
        createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      });
      expect(fileFirst.body).not.toHaveProperty('width');
    });

    it('refuses an upload without the file part (400)', async () => {
      const outcome = await upload([{ name: 'filename', value: 'x.txt' }]);
      expect([outcome.status, (outcome.body.error as { code: string }).code]).toEqual([400, 'invalid_request']);
    });

    it('refuses an upload without the filename field even if the file part names a file (400)', async () => {
      const before = await uploadKeys();
      const outcome = await upload([{ name: 'file', filename: 'report.pdf', content: Buffer.from('%PDF-1.4') }]);
      expect([outcome.status, (outcome.body.error as { code: string }).code]).toEqual([400, 'invalid_request']);
      expect(await uploadKeys()).toEqual(before);
      expect((await rowsOf(alice)).filter((row) => row.state === 'uploading')).toEqual([]);
    });

    it('refuses two file parts, a body that is not multipart, and filenames that are empty, too long or a path', async () => {
      const twoFiles = await upload([
        { name: 'filename', value: 'x.txt' },
        { name: 'file', content: Buffer.from('one') },
        { name: 'file', content: Buffer.from('two') },
      ]);
      expect(twoFiles.status).toBe(400);
      const json = await fetch(filesUrl(), {
        method: 'POST',
        headers: { authorization: `Bearer ${aliceToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ filename: 'x.txt', file: 'abc' }),
      });
      expect([json.status, await errorCode(json)]).toEqual([400, 'invalid_request']);
      for (const filename of ['', '   ', 'a'.repeat(256), '../etc/passwd', 'a\\b', 'tab\there', 'nul\u0000']) {
        const outcome = await upload([
          { name: 'filename', value: filename },
          { name: 'file', content: Buffer.from('x') },
        ]);
        expect([filename, outcome.status]).toEqual([filename, 400]);
      }
      const longest = await upload([
        { name: 'filename', value: 'é'.repeat(255) },
        { name: 'file', content: Buffer.from('x') },
      ]);
      expect(longest.status).toBe(201);
      expect((await rowsOf(alice)).filter((row) => row.state === 'uploading')).toEqual([]);
    });

    it('gives width and height of an image, read from its header', async () => {
      const image = await uploadFile('picture.dat', png(37, 21));
      expect(image).toMatchObject({ width: 37, height: 21 });
      const listed = ((await (await call('GET', '')).json()) as FilePage).files.find(
        (file) => file.fileId === image.fileId,
      );
      expect(listed).toMatchObject({ mimeType: 'image/png', width: 37, height: 21 });
    });

    it('answers a file over 512 MB with 413 as soon as the limit is crossed, leaving no row and no blob', async () => {
      const user = chat.user();
      const outcome = await uploadMultipart(filesUrl(), await user.token(), [
        { name: 'filename', value: 'huge.bin' },
        { name: 'file', filename: 'huge.bin', size: 600 * MiB },
      ]);
      expect([outcome.status, (outcome.body.error as { code: string }).code]).toEqual([413, 'payload_too_large']);
      expect(outcome.headers.connection).toBe('close');
      expect(outcome.bodyComplete).toBe(false);
      // The limit plus what sockets buffer, far from the 600 MB the client had to send.
      expect(outcome.writtenAtResponse).toBeGreaterThan(MAX_UPLOAD_BYTES);
      expect(outcome.writtenAtResponse).toBeLessThan(MAX_UPLOAD_BYTES + 32 * MiB);
      expect(await rowsOf(user)).toEqual([]);
      expect(await uploadKeys()).not.toContainEqual(expect.stringContaining('huge'));
      await eventually(
        async () =>
          (
            await chat.service.nest
              .get(DataSource)
              .query(`SELECT 1 FROM "conversations"."files" WHERE "state" = 'uploading'`)
          ).length === 0,
      );
      const known = new Set((await rowsOf(alice)).map((row) => `uploads/${row.id}`));
      expect((await uploadKeys()).filter((key) => !known.has(key))).toEqual([]);
    }, 120_000);

    it('answers a declared Content-Length over the limit with 413 before reading the body', async () => {
      const outcome = await uploadMultipart(
        filesUrl(),
        aliceToken,
        [
          { name: 'filename', value: 'huge.bin' },
          { name: 'file', size: 600 * MiB },
        ],
        { contentLength: true },
      );
      expect(outcome.status).toBe(413);
      expect(outcome.writtenAtResponse).toBeLessThan(64 * MiB);
    }, 60_000);

    it('leaves no row and no blob behind when the client cuts the body off', async () => {
      const user = chat.user();
      await uploadCutOff(
        filesUrl(),
        await user.token(),
        [
          { name: 'filename', value: 'cut.bin' },
          { name: 'file', size: 50 * MiB },
        ],
        10 * MiB,
        // While the connection is open the upload is under way: its row exists, `uploading`.
        () => eventually(async () => (await rowsOf(user)).some((row) => row.state === 'uploading')),
      );
      await eventually(async () => (await rowsOf(user)).length === 0);
      const known = new Set((await rowsOf(alice)).map((row) => `uploads/${row.id}`));
      await eventually(async () => (await uploadKeys()).every((key) => known.has(key)));
    }, 60_000);

    it('streams a 100 MB upload without growing the process by 64 MB', async () => {
      const size = 100 * MiB;
      const baseline = process.memoryUsage().rss;
      let peak = baseline;
      const sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage().rss);
      }, 10);
      try {
        const outcome = await uploadMultipart(
          filesUrl(),
          aliceToken,
          [
            { name: 'filename', value: 'big.bin' },
            { name: 'file', size },
          ],
          { onProgress: () => (peak = Math.max(peak, process.memoryUsage().rss)) },
        );
        expect(outcome.status).toBe(201);
        expect(outcome.body.bytes).toBe(size);
      } finally {
        clearInterval(sampler);
      }
      expect(peak - baseline).toBeLessThan(64 * MiB);
    }, 120_000);

    it('requires the chat:file scope (403)', async () => {
      const token = await alice.token('openid chat:exec chat:history');
      const outcome = await upload(
        [
          { name: 'filename', value: 'x' },
          { name: 'file', content: Buffer.from('x') },
        ],
        token,
      );
      expect([outcome.status, (outcome.body.error as { code: string }).code]).toEqual([403, 'insufficient_scope']);
      for (const [method, suffix] of [
        ['GET', ''],
        ['GET', `/${randomUUID()}/content`],
        ['DELETE', `/${randomUUID()}`],
      ] as const) {
        const response = await call(method, suffix, token);
        expect([method, suffix, response.status]).toEqual([method, suffix, 403]);
      }
    });
  });

  describe('GET /v1/files/:file_id/content', () => {
    const content = patternBytes(3 * MiB + 17, 42);
    let file: FileItem;

    beforeAll(async () => {
      file = await uploadFile('Résumé "final".pdf', content);
    });

    it('answers the exact bytes with Content-Type, Content-Length, Content-Disposition and Accept-Ranges', async () => {
      const response = await call('GET', `/${file.fileId}/content`);
      expect(response.status).toBe(200);
      const body = Buffer.from(await response.arrayBuffer());
      expect(body.length).toBe(content.length);
      expect(sha256(body)).toBe(sha256(content));
      expect(response.headers.get('content-type')).toBe('application/pdf');
      expect(response.headers.get('content-length')).toBe(String(content.length));
      expect(response.headers.get('accept-ranges')).toBe('bytes');
      expect(response.headers.get('etag')).toBe(`"${file.fileId}"`);
      expect(response.headers.get('content-disposition')).toBe(
        `attachment; filename="Resume _final_.pdf"; filename*=UTF-8''R%C3%A9sum%C3%A9%20%22final%22.pdf`,
      );
    });

    it('answers a single byte range with 206 and Content-Range: first bytes, suffix, middle', async () => {
      const cases: [string, number, number][] = [
        ['bytes=0-99', 0, 99],
        ['bytes=-500', content.length - 500, content.length - 1],
        ['bytes=1000000-1000999', 1_000_000, 1_000_999],
        [`bytes=${content.length - 10}-`, content.length - 10, content.length - 1],
        [`bytes=5-${content.length + 100}`, 5, content.length - 1],
      ];
      for (const [range, start, end] of cases) {
        const response = await call('GET', `/${file.fileId}/content`, aliceToken, { range });
        const body = Buffer.from(await response.arrayBuffer());
        expect([range, response.status]).toEqual([range, 206]);
        expect(response.headers.get('content-range')).toBe(`bytes ${start}-${end}/${content.length}`);
        expect(response.headers.get('content-length')).toBe(String(end - start + 1));
        expect(body.equals(content.subarray(start, end + 1))).toBe(true);
      }
    });

    it('answers a range past the end with 416 and Content-Range: bytes */size', async () => {
      const response = await call('GET', `/${file.fileId}/content`, aliceToken, {
        range: `bytes=${content.length}-${content.length + 10}`,
      });
      expect(response.status).toBe(416);
      expect(response.headers.get('content-range')).toBe(`bytes */${content.length}`);
      expect(await errorCode(response)).toBe('range_not_satisfiable');
    });

    it('answers several ranges, or a malformed Range, with the whole file (200)', async () => {
      for (const range of ['bytes=0-9,100-109', 'bytes=abc', 'items=0-1']) {
        const response = await call('GET', `/${file.fileId}/content`, aliceToken, { range });
        const body = Buffer.from(await response.arrayBuffer());
        expect([range, response.status, body.length]).toEqual([range, 200, content.length]);
      }
    });

    it('serves markup as opaque bytes in a sandbox, never as a page', async () => {
      const page = await uploadFile('page.html', Buffer.from('<script>alert(1)</script>'));
      const svg = await uploadFile('logo.svg', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"></svg>'));
      for (const { fileId } of [page, svg]) {
        const response = await call('GET', `/${fileId}/content`);
        await response.arrayBuffer();
        expect(response.headers.get('content-type')).toBe('application/octet-stream');
        expect(response.headers.get('content-security-policy')).toContain('sandbox');
        expect(response.headers.get('x-content-type-options')).toBe('nosniff');
        expect(response.headers.get('content-disposition')).toMatch(/^attachment;/);
      }
    });

    it('refuses a malformed file_id with 400 invalid_parameter', async () => {
      for (const id of ['not-a-uuid', '123', `${randomUUID()}x`]) {
        const response = await call('GET', `/${id}/content`);
        expect([id, response.status, await errorCode(response)]).toEqual([id, 400, 'invalid_parameter']);
      }
    });
  });

  describe('owner isolation', () => {
    it("answers 404 for another user's file on content and delete, and leaves it out of their list", async () => {
      const file = await uploadFile('private.txt', Buffer.from('alice only'));
      const bobToken = await bob.token();
      const content = await call('GET', `/${file.fileId}/content`, bobToken);
      expect([content.status, await errorCode(content)]).toEqual([404, 'not_found']);
      const deleted = await call('DELETE', `/${file.fileId}`, bobToken);
      expect([deleted.status, await errorCode(deleted)]).toEqual([404, 'not_found']);
      const list = (await (await call('GET', '', bobToken)).json()) as FilePage;
      expect(list.files.map((item) => item.fileId)).not.toContain(file.fileId);
      const mine = await call('GET', `/${file.fileId}/content`);
      expect(await mine.text()).toBe('alice only');
    });

    it('answers 404 for an unknown file', async () => {
      const response = await call('GET', `/${randomUUID()}/content`);
      expect([response.status, await errorCode(response)]).toEqual([404, 'not_found']);
    });
  });

  describe('GET /v1/files', () => {
    it('lists the files newest first with a cursor for the next page', async () => {
      const user = chat.user();
      const token = await user.token();
      const uploaded: FileItem[] = [];
      for (const name of ['one.txt', 'two.md', 'three.csv']) {
        uploaded.push(await uploadFile(name, Buffer.from(name), token));
      }
      const first = (await (await call('GET', '?limit=2', token)).json()) as FilePage;
      expect(first.files.map((file) => file.filename)).toEqual(['three.csv', 'two.md']);
      expect(first.hasMore).toBe(true);
      expect(first.files[0]).toEqual({
        fileId: uploaded[2]?.fileId,
        filename: 'three.csv',
        bytes: 9,
        mimeType: 'text/csv',
        createdAt: uploaded[2]?.createdAt,
      });
      const second = (await (
        await call('GET', `?limit=2&cursor=${encodeURIComponent(first.cursor as string)}`, token)
      ).json()) as FilePage;
      expect(second.files.map((file) => file.filename)).toEqual(['one.txt']);
      expect(second.hasMore).toBe(false);
      expect(second).not.toHaveProperty('cursor');
      const ascending = (await (await call('GET', '?order=asc', token)).json()) as FilePage;
      expect(ascending.files.map((file) => file.filename)).toEqual(['one.txt', 'two.md', 'three.csv']);
    });

    it('refuses a limit outside 1-100 and a cursor it did not produce', async () => {
      for (const query of ['?limit=0', '?limit=101', '?limit=x', '?order=up']) {
        const response = await call('GET', query);
        expect([query, response.status, await errorCode(response)]).toEqual([query, 400, 'invalid_parameter']);
      }
      const response = await call('GET', '?cursor=abc');
      expect([response.status, await errorCode(response)]).toEqual([400, 'invalid_cursor']);
    });
  });

  describe('DELETE /v1/files/:file_id', () => {
    it('deletes the file, after which its content is 404 and its blob is gone', async () => {
      const file = await uploadFile('gone.txt', Buffer.from('bye'));
      const response = await call('DELETE', `/${file.fileId}`);
      expect([response.status, await response.json()]).toEqual([200, { fileId: file.fileId, deleted: true }]);
      const content = await call('GET', `/${file.fileId}/content`);
      expect([content.status, await errorCode(content)]).toEqual([404, 'not_found']);
      expect(await store.stat(`uploads/${file.fileId}`)).toBeNull();
      const again = await call('DELETE', `/${file.fileId}`);
      expect(again.status).toBe(404);
    });
  });

  describe('the sweep', () => {
    it('deletes uploads left uploading past the sweep age and blobs without a row, and nothing else', async () => {
      const dataSource = chat.service.nest.get(DataSource);
      const kept = await uploadFile('kept.txt', Buffer.from('kept'));
      const abandoned = randomUUID();
      await dataSource.query(
        `INSERT INTO "conversations"."files" ("id", "user_id", "filename", "blob_key", "state", "created_at", "touched_at")
         VALUES ($1, $2, '', $3, 'uploading', now() - interval '2 hours', now() - interval '2 hours')`,
        [abandoned, alice.userId, `uploads/${abandoned}`],
      );
      await store.put(`uploads/${abandoned}`, Readable.from([Buffer.from('partial')]));
      const orphan = randomUUID();
      await store.put(`uploads/${orphan}`, Readable.from([Buffer.from('orphan')]));
      const recent = randomUUID();
      await dataSource.query(
        `INSERT INTO "conversations"."files" ("id", "user_id", "filename", "blob_key", "state", "created_at")
         VALUES ($1, $2, '', $3, 'uploading', now())`,
        [recent, alice.userId, `uploads/${recent}`],
      );
      const job = chat.service.nest.get(FilesSweepJob);

      // The orphan blob is new: only rows are old enough yet.
      const first = await job.run();
      expect(first.uploads).toBeGreaterThanOrEqual(1);
      expect(await store.stat(`uploads/${abandoned}`)).toBeNull();
      expect(await store.stat(`uploads/${orphan}`)).not.toBeNull();
      const ids = (await rowsOf(alice)).map((row) => row.id);
      expect(ids).not.toContain(abandoned);
      expect(ids).toEqual(expect.arrayContaining([recent, kept.fileId]));

      // Two hours on, the orphan blob is old enough too.
      const second = await chat.service.nest
        .get(FilesService)
        .sweep(3600, { at: new Date(Date.now() + 2 * 3_600_000) });
      expect(second.orphanBlobs).toBeGreaterThanOrEqual(1);
      expect(await store.stat(`uploads/${orphan}`)).toBeNull();
      expect(await store.stat(`uploads/${kept.fileId}`)).not.toBeNull();
      expect(await (await call('GET', `/${kept.fileId}/content`)).text()).toBe('kept');
    });

    /** A blob under `key` last modified `ageMs` ago (the store is a directory: its mtime is the blob's age). */
    async function blobAged(key: string, ageMs: number): Promise<void> {
      await store.put(key, Readable.from([Buffer.from(key)]));
      const at = new Date(Date.now() - ageMs);
      await utimes(path.join(blobDir, ...key.split('/')), at, at);
    }

    async function insertDeliverable(blobKey: string, conversationId: string, messageId: string): Promise<void> {
      await chat.service.nest.get(DataSource).query(
        `INSERT INTO "conversations"."deliverables"
           ("id", "conversation_id", "message_id", "user_id", "filepath", "filename", "blob_key", "created_at")
         VALUES ($1, $2, $3, $4, 'report.md', 'report.md', $5, now() - interval '2 hours')`,
        [randomUUID(), conversationId, messageId, alice.userId, blobKey],
      );
    }

    it('deletes deliverable blobs without a row older than the sweep age, and keeps those with a row and newer ones', async () => {
      const conversationId = randomUUID();
      const deliverableKey = (messageId: string = randomUUID()) =>
        `deliverables/${conversationId}/${messageId}/${randomUUID()}`;
      const twoHours = 2 * 3_600_000;
      const keptMessageId = randomUUID();
      const kept = deliverableKey(keptMessageId);
      await blobAged(kept, twoHours);
      await insertDeliverable(kept, conversationId, keptMessageId);
      // Written by a turn that died before its row, and one whose replaced blob's delete failed.
      const orphan = deliverableKey();
      await blobAged(orphan, twoHours);
      const replaced = deliverableKey(keptMessageId);
      await blobAged(replaced, twoHours);
      // Being written right now: its row is not there yet.
      const fresh = deliverableKey();
      await blobAged(fresh, 60_000);

      const swept = await chat.service.nest.get(FilesSweepJob).run();

      expect(swept.orphanBlobs.deliverables).toBe(2);
      expect(await store.stat(orphan)).toBeNull();
      expect(await store.stat(replaced)).toBeNull();
      expect(await store.stat(kept)).not.toBeNull();
      expect(await store.stat(fresh)).not.toBeNull();

      // A key of another shape than the turns write is looked up by itself, not by its message id.
      const odd = `deliverables/${conversationId}/odd-${randomUUID()}`;
      await blobAged(odd, twoHours);
      await insertDeliverable(odd, conversationId, randomUUID());
      const oddOrphan = `deliverables/${conversationId}/odd-${randomUUID()}`;
      await blobAged(oddOrphan, twoHours);
      expect((await chat.service.nest.get(FilesSweepJob).run()).orphanBlobs.deliverables).toBe(1);
      expect(await store.stat(oddOrphan)).toBeNull();
      expect(await store.stat(odd)).not.toBeNull();
      expect(await store.stat(kept)).not.toBeNull();
    });

    it('leaves an upload alone while its bytes keep arriving, and takes one that stalls', async () => {
      const dataSource = chat.service.nest.get(DataSource);
      // The service as chat-service builds it, refreshing its row every 50 ms instead of every 30 s.
      const files = filesServiceFor(dataSource, store, { touchIntervalMs: 50 });
      const server = http.createServer((request, response) => {
        files.upload({ userId: alice.userId, tenantId: null }, request).then(
          (body) => response.writeHead(201).end(JSON.stringify(body)),
          (error: DomainError) => response.writeHead(400).end(JSON.stringify({ code: error.toApiError().code })),
        );
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      const boundary = 'touch-boundary';
      /** Sends the head, then `pieces` of the file each after `gapMs`, then the tail; resolves with the answer. */
      const slowUpload = (pieces: number, gapMs: number) =>
        new Promise<{ status: number; body: { code?: string; fileId?: string } }>((resolve, reject) => {
          const request = http.request({
            port,
            host: '127.0.0.1',
            method: 'POST',
            headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
          });
          request.on('response', (response) => {
            let text = '';
            response.on('data', (chunk: Buffer) => (text += chunk.toString()));
            response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) }));
          });
          request.on('error', reject);
          request.write(
            `--${boundary}\r\nContent-Disposition: form-data; name="filename"\r\n\r\nslow.txt\r\n` +
              `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="slow.txt"\r\n\r\n`,
          );
          let sent = 0;
          const next = () => {
            if (sent === pieces) return request.end(`\r\n--${boundary}--\r\n`);
            sent++;
            request.write('x'.repeat(1000));
            setTimeout(next, gapMs);
          };
          next();
        });
      try {
        // Sweeps with an age of 400 ms run all along: a live upload (a piece every 100 ms) survives them.
        let sweeping = true;
        const sweeps = (async () => {
          while (sweeping) {
            await files.sweep(0.4);
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
        })();
        const live = await slowUpload(12, 100);
        // A stalled one (one piece, then 1.2 s of silence) is taken; its client is told to send it again.
        const stalled = await slowUpload(2, 1200);
        sweeping = false;
        await sweeps;
        expect(live.status).toBe(201);
        expect(live.body.fileId).toEqual(expect.any(String));
        expect(stalled).toEqual({ status: 400, body: { code: 'invalid_request' } });
        const uploading = (await dataSource.query(
          `SELECT count(*)::int AS "count" FROM "conversations"."files" WHERE "state" = 'uploading'`,
        )) as { count: number }[];
        expect(uploading[0]?.count).toBe(0);
      } finally {
        server.close();
      }
    });
  });
});
