import { ApiError } from '@fed/contracts';
import { useTestDatabase } from '@fed/persistence/testing';
import { FsBlobStore } from '@fed/storage';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { type Server, createServer, request as httpRequest } from 'node:http';
import { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LibraryAdminService } from './library-admin.service';
import { libraryEntities } from './library.entity';
import { LibraryError } from './library.errors';
import { LibraryRepository } from './library.repository';

const MAX_FILE_BYTES = 64 * 1024;
const BOUNDARY = 'fed-boundary';
const HEAD = Buffer.from(
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="filepath"\r\n\r\nbig.bin\r\n` +
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n\r\n`,
);

/**
 * The upload of a library file as `POST /api/v1/admin/library/files` streams it, with a small file limit: what no
 * HTTP test sends 512 MB to show (apps/admin-service/src/library-admin.spec.ts has the rest).
 */
describe('library file uploads (multipart, streamed)', () => {
  const database = useTestDatabase({ entities: libraryEntities });
  let dir: string;
  let server: Server;
  let url: string;
  const settled: Promise<unknown>[] = [];
  /** The answer's code of each upload, in order (also when nobody is left to read it). */
  const outcomes: string[] = [];

  const stored = async () => ({
    rows: (await database.dataSource.query('SELECT "id" FROM "agent"."library_items"')) as unknown[],
    blobs: await readdir(path.join(dir, 'library')).catch(() => [] as string[]),
  });

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'fed-library-upload-'));
    const blobs = new FsBlobStore(dir);
    await blobs.prepare();
    const admin = new LibraryAdminService(new LibraryRepository(database.dataSource), blobs, {
      maxFileBytes: MAX_FILE_BYTES,
    });
    server = createServer((req, res) => {
      const done = admin.uploadFile(req).then(
        (item) => {
          outcomes.push('stored');
          res.writeHead(201).end(item.filepath);
        },
        (error: unknown) => {
          const api = error instanceof LibraryError ? error.toApiError() : new ApiError('internal_error', 'x');
          outcomes.push(api.code);
          res.writeHead(api.status, api.headers).end(api.code);
        },
      );
      settled.push(done);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses a file over the limit sent without a length (chunked) as soon as it crosses it: 413, no row, no blob', async () => {
    const answer = await new Promise<{ status: number; body: string; connection?: string }>((resolve, reject) => {
      const req = httpRequest(url, {
        method: 'POST',
        headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'transfer-encoding': 'chunked' },
      });
      req.on('response', (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, body, connection: res.headers.connection });
          req.destroy();
        });
      });
      req.on('error', reject);
      req.write(HEAD);
      // Four times the limit, and never the end: the answer must not wait for it.
      for (let i = 0; i < 4; i++) req.write(Buffer.alloc(MAX_FILE_BYTES, 0x61));
    });
    expect(answer).toEqual({ status: 413, body: 'payload_too_large', connection: 'close' });
    await Promise.all(settled);
    expect(await stored()).toEqual({ rows: [], blobs: [] });
  });

  it('leaves no row and no blob when the client goes away in the middle of the file', async () => {
    await new Promise<void>((resolve) => {
      const req = httpRequest(url, {
        method: 'POST',
        headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'transfer-encoding': 'chunked' },
      });
      req.on('error', () => resolve());
      req.write(HEAD);
      req.write(Buffer.alloc(1024, 0x62), () => setTimeout(() => req.destroy(), 100));
      req.on('close', () => resolve());
    });
    // The server sees the cut-off and settles the upload.
    const until = Date.now() + 5000;
    while (outcomes.length < 2 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
    await Promise.all(settled);
    expect(outcomes).toEqual(['payload_too_large', 'invalid_request']);
    expect(await stored()).toEqual({ rows: [], blobs: [] });
  });
});
