import 'reflect-metadata';
import { libraryAdminServiceFor, libraryBlobKey } from '@fed/agent';
import { openBlobStore } from '@fed/storage';
import { randomUUID } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import path from 'node:path';
import { text } from 'node:stream/consumers';
import { type AdminStack, bootAdminStack, call } from './testing/boot-admin-stack';
import {
  type PlatformCallers,
  REFUSED_TO_ALL_BUT_THE_OPERATOR,
  auditRows,
  platformCallers,
  refusalsOf,
} from './testing/platform-callers';

const ROUTE = '/api/v1/admin/library';

type Part = { name: string; value: string } | { name: string; filename: string; type?: string; data: string | Buffer };

/** A multipart/form-data body with its parts in the order given (fetch's FormData would choose for us). */
function multipart(parts: Part[]): { body: Buffer; contentType: string } {
  const boundary = `----fed-${randomUUID()}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition =
      'filename' in part
        ? `form-data; name="${part.name}"; filename="${part.filename}"\r\nContent-Type: ${part.type ?? 'application/octet-stream'}`
        : `form-data; name="${part.name}"`;
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n\r\n`));
    chunks.push(Buffer.from('filename' in part ? part.data : part.value));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

interface LibraryItem {
  itemId: string;
  filepath: string;
  title: string;
  kind: string;
  description: string | null;
  mimeType: string;
  bytes: number;
  content?: string;
  createdAt: string;
  updatedAt: string;
}

/**
 * The library over HTTP (issue 38): `/api/v1/admin/library`, the platform operator's (platform:manage), over the
 * service `platformctl library` calls. Files are uploaded as chat files are (multipart, streamed, 512 MB) into the
 * blob store chat-service reads; templates are JSON.
 */
describe('the library over HTTP: files and prompt templates (platform:manage)', () => {
  let stack: AdminStack;
  let callers: PlatformCallers;
  const asOperator = (method: string, pathAndQuery: string, body?: unknown) =>
    call(stack.admin, method, pathAndQuery, callers.operator, body);
  const blobDir = () => (stack.admin.config as unknown as { storage: { dir: string } }).storage.dir;
  const libraryBlobs = async () => readdir(path.join(blobDir(), 'library')).catch(() => [] as string[]);
  const cli = async () => {
    const blobs = await openBlobStore((stack.admin.config as unknown as { storage: never }).storage);
    return { admin: libraryAdminServiceFor(stack.dataSource, blobs.store), blobs: blobs.store };
  };

  async function upload(
    parts: Part[],
    token = callers.operator,
  ): Promise<{ status: number; body: Record<string, unknown> & { error?: { code: string; message: string } } }> {
    const { body, contentType } = multipart(parts);
    const res = await fetch(`${stack.admin.url}${ROUTE}/files`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
      body,
    });
    return { status: res.status, body: (await res.json()) as never };
  }

  beforeAll(async () => {
    stack = await bootAdminStack();
    callers = await platformCallers(stack, 'library');
  }, 120_000);
  afterAll(() => stack?.close());
  beforeEach(async () => {
    const { admin } = await cli();
    for (const item of await admin.list()) await admin.remove(item.filepath);
  });

  it("refuses every route to all but the platform operator: no token 401; a tenant admin, a plain user and a tenant's client with every other management scope 403, storing nothing", async () => {
    const { admin } = await cli();
    const template = await admin.addTemplate('t/kept', { title: 'Kept', text: 'Keep me.' });
    const routes: [string, string, unknown?][] = [
      ['GET', ROUTE],
      ['POST', `${ROUTE}/templates`, { filepath: 't/refused', title: 'T', text: 'x' }],
      ['DELETE', `${ROUTE}/${template.id}`],
    ];
    for (const [method, route, body] of routes) {
      expect([method, route, await refusalsOf(stack, callers, method, route, body)]).toEqual([
        method,
        route,
        REFUSED_TO_ALL_BUT_THE_OPERATOR,
      ]);
    }
    const parts: Part[] = [
      { name: 'filepath', value: 'refused.txt' },
      { name: 'file', filename: 'x.txt', data: 'refused' },
    ];
    const refused: [string, number, string | undefined][] = [];
    for (const [who, token] of [
      ['a tenant admin', callers.tenantAdmin],
      ['a plain user', callers.plainUser],
      ["a tenant's client with every other management scope", callers.tenantClient],
    ] as const) {
      const answer = await upload(parts, token);
      refused.push([who, answer.status, answer.body.error?.code]);
    }
    const anonymous = await fetch(`${stack.admin.url}${ROUTE}/files`, {
      method: 'POST',
      headers: { 'content-type': multipart(parts).contentType },
      body: multipart(parts).body,
    });
    expect([
      ['no token', anonymous.status, ((await anonymous.json()) as { error: { code: string } }).error.code],
      ...refused,
    ]).toEqual(REFUSED_TO_ALL_BUT_THE_OPERATOR);
    expect((await admin.list()).map((item) => item.filepath)).toEqual(['t/kept']);
    expect(await libraryBlobs()).toEqual([]);
  });

  it('publishes a file by multipart upload into the blob store chat-service reads, typed by its filepath (its own name and Content-Type ignored), and lists it', async () => {
    const answer = await upload([
      { name: 'filepath', value: 'guides/style.md' },
      { name: 'title', value: 'House style' },
      { name: 'description', value: 'How we write.' },
      { name: 'file', filename: 'evil.exe', type: 'application/x-msdownload', data: '# House style\n' },
    ]);
    expect(answer).toMatchObject({
      status: 201,
      body: {
        filepath: 'guides/style.md',
        title: 'House style',
        kind: 'file',
        description: 'How we write.',
        mimeType: 'text/markdown',
        bytes: 14,
      },
    });
    const item = answer.body as unknown as LibraryItem;
    expect(item).not.toHaveProperty('content');
    const { admin, blobs } = await cli();
    expect(await text(await blobs.get(libraryBlobKey(item.itemId)))).toBe('# House style\n');

    // The type given wins; the title defaults to the filepath's last segment.
    const typed = await upload([
      { name: 'filepath', value: 'data/report' },
      { name: 'mimeType', value: 'text/csv' },
      { name: 'file', filename: 'report.csv', data: 'a,b\n1,2\n' },
    ]);
    expect(typed).toMatchObject({ status: 201, body: { title: 'report', mimeType: 'text/csv', bytes: 8 } });

    expect(await asOperator('GET', ROUTE)).toEqual({
      status: 200,
      body: { items: [typed.body, answer.body], total: 2, limit: 25, page: 1, hasMore: false },
    });
    // platformctl lists what the route published.
    expect((await admin.list()).map((row) => [row.filepath, row.kind, row.bytes])).toEqual([
      ['data/report', 'file', '8'],
      ['guides/style.md', 'file', '14'],
    ]);
  });

  it('publishes a prompt template with its text, listed with it', async () => {
    const answer = await asOperator('POST', `${ROUTE}/templates`, {
      filepath: 'templates/summary',
      title: ' Summary ',
      text: 'Summarize, in français:',
      description: 'Short',
    });
    expect(answer).toMatchObject({
      status: 201,
      body: {
        filepath: 'templates/summary',
        title: 'Summary',
        kind: 'prompt_template',
        description: 'Short',
        mimeType: 'text/plain',
        bytes: Buffer.byteLength('Summarize, in français:'),
        content: 'Summarize, in français:',
      },
    });
    expect((await asOperator('GET', ROUTE)).body['items']).toEqual([answer.body]);
    expect(await libraryBlobs()).toEqual([]);
  });

  it('lists numbered pages in filepath order: limit, page, total and hasMore = page * limit < total', async () => {
    const { admin } = await cli();
    for (const filepath of ['c/one', 'a/two', 'b/three']) {
      await admin.addTemplate(filepath, { title: filepath, text: filepath });
    }
    const first = await asOperator('GET', `${ROUTE}?limit=2`);
    expect((first.body['items'] as LibraryItem[]).map((item) => item.filepath)).toEqual(['a/two', 'b/three']);
    expect(first.body).toMatchObject({ total: 3, limit: 2, page: 1, hasMore: true });
    const second = await asOperator('GET', `${ROUTE}?limit=2&page=2`);
    expect((second.body['items'] as LibraryItem[]).map((item) => item.filepath)).toEqual(['c/one']);
    expect(second.body).toMatchObject({ total: 3, page: 2, hasMore: false });
    for (const query of ['?limit=0', '?limit=101', '?page=0', '?limit=1e2']) {
      const answer = await asOperator('GET', `${ROUTE}${query}`);
      expect([query, answer.status, answer.body.error?.code]).toEqual([query, 400, 'invalid_parameter']);
    }
  });

  it('deletes an item by its id, the row and then its bytes; 404 not_found for an unknown id or one of the wrong shape', async () => {
    const uploaded = await upload([
      { name: 'filepath', value: 'gone.txt' },
      { name: 'file', filename: 'gone.txt', data: 'bye' },
    ]);
    const itemId = uploaded.body['itemId'] as string;
    expect(await libraryBlobs()).toHaveLength(1);
    expect(await asOperator('DELETE', `${ROUTE}/${itemId}`)).toEqual({
      status: 200,
      body: { itemId, filepath: 'gone.txt', deleted: true },
    });
    expect(await libraryBlobs()).toEqual([]);
    expect((await asOperator('GET', ROUTE)).body['total']).toBe(0);
    for (const ref of [itemId, randomUUID(), 'gone.txt', 'not-a-uuid', '..%2F..%2Fetc', `${itemId}%00`]) {
      const answer = await asOperator('DELETE', `${ROUTE}/${ref}`);
      expect([ref, answer.status, answer.body.error?.code]).toEqual([ref, 404, 'not_found']);
    }
  });

  it('refuses an upload that breaks the library rules or the multipart form, storing nothing: 400, 409 for a taken filepath', async () => {
    const { admin } = await cli();
    await admin.addTemplate('taken/path', { title: 'Taken', text: 'x' });
    const file: Part = { name: 'file', filename: 'x.txt', data: 'bytes' };
    const refusals: [string, Part[], number, string][] = [
      ['no filepath', [file], 400, 'invalid_parameter'],
      ['a filepath after the file', [file, { name: 'filepath', value: 'late.txt' }], 400, 'invalid_parameter'],
      [
        'a title after the file',
        [{ name: 'filepath', value: 'a.txt' }, file, { name: 'title', value: 'T' }],
        400,
        'invalid_request',
      ],
      ['a parent segment', [{ name: 'filepath', value: '../escape.txt' }, file], 400, 'invalid_parameter'],
      ['a nested parent segment', [{ name: 'filepath', value: 'a/../../b.txt' }, file], 400, 'invalid_parameter'],
      ['a current segment', [{ name: 'filepath', value: 'a/./b.txt' }, file], 400, 'invalid_parameter'],
      ['an absolute path', [{ name: 'filepath', value: '/etc/passwd' }, file], 400, 'invalid_parameter'],
      ['an empty segment', [{ name: 'filepath', value: 'a//b.txt' }, file], 400, 'invalid_parameter'],
      ['a backslash', [{ name: 'filepath', value: 'a\\b.txt' }, file], 400, 'invalid_parameter'],
      ['an encoded slash', [{ name: 'filepath', value: 'a%2F..%2Fb' }, file], 400, 'invalid_parameter'],
      ['a control character', [{ name: 'filepath', value: 'a\u0001b.txt' }, file], 400, 'invalid_parameter'],
      ['a NUL', [{ name: 'filepath', value: 'a\u0000b.txt' }, file], 400, 'invalid_parameter'],
      ['a space', [{ name: 'filepath', value: 'a b.txt' }, file], 400, 'invalid_parameter'],
      ['a long filepath', [{ name: 'filepath', value: 'x'.repeat(256) }, file], 400, 'invalid_parameter'],
      [
        'a filepath given twice',
        [{ name: 'filepath', value: 'a.txt' }, { name: 'filepath', value: 'b.txt' }, file],
        400,
        'invalid_request',
      ],
      ['a taken filepath', [{ name: 'filepath', value: 'taken/path' }, file], 409, 'conflict'],
      [
        'a two-line title',
        [{ name: 'filepath', value: 'a.txt' }, { name: 'title', value: 'one\ntwo' }, file],
        400,
        'invalid_parameter',
      ],
      [
        'a long title',
        [{ name: 'filepath', value: 'a.txt' }, { name: 'title', value: 't'.repeat(201) }, file],
        400,
        'invalid_parameter',
      ],
      [
        'a long description',
        [{ name: 'filepath', value: 'a.txt' }, { name: 'description', value: 'd'.repeat(2001) }, file],
        400,
        'invalid_parameter',
      ],
      [
        'a description over the field size',
        [{ name: 'filepath', value: 'a.txt' }, { name: 'description', value: 'd'.repeat(9000) }, file],
        400,
        'invalid_request',
      ],
      [
        'a bad type',
        [{ name: 'filepath', value: 'a.txt' }, { name: 'mimeType', value: 'text/html; charset=x' }, file],
        400,
        'invalid_parameter',
      ],
      ['no file part', [{ name: 'filepath', value: 'a.txt' }], 400, 'invalid_request'],
      ['two file parts', [{ name: 'filepath', value: 'a.txt' }, file, file], 400, 'invalid_request'],
      [
        'a file part of another name',
        [
          { name: 'filepath', value: 'a.txt' },
          { ...file, name: 'upload' },
        ],
        400,
        'invalid_request',
      ],
    ];
    for (const [what, parts, status, code] of refusals) {
      const answer = await upload(parts);
      expect([what, answer.status, answer.body.error?.code]).toEqual([what, status, code]);
    }
    const notMultipart = await asOperator('POST', `${ROUTE}/files`, { filepath: 'a.txt', file: 'bytes' });
    expect([notMultipart.status, notMultipart.body.error?.code]).toEqual([400, 'invalid_request']);
    expect((await admin.list()).map((item) => item.filepath)).toEqual(['taken/path']);
    expect(await libraryBlobs()).toEqual([]);
  });

  it('removes a file already stored when the rest of its upload is refused (a second file part arriving later)', async () => {
    const { body, contentType } = multipart([
      { name: 'filepath', value: 'first.txt' },
      { name: 'file', filename: 'first.txt', data: 'first' },
      { name: 'file', filename: 'second.txt', data: 'second' },
    ]);
    // Up to the second part's headers at once; the rest once the first file has had time to be stored.
    const cut = body.indexOf('filename="second.txt"');
    const stream = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(body.subarray(0, cut));
        await new Promise((resolve) => setTimeout(resolve, 500));
        controller.enqueue(body.subarray(cut));
        controller.close();
      },
    });
    const res = await fetch(`${stack.admin.url}${ROUTE}/files`, {
      method: 'POST',
      headers: { authorization: `Bearer ${callers.operator}`, 'content-type': contentType },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect([res.status, ((await res.json()) as { error: { code: string } }).error.code]).toEqual([
      400,
      'invalid_request',
    ]);
    const { admin } = await cli();
    expect(await admin.list()).toEqual([]);
    expect(await libraryBlobs()).toEqual([]);
  });

  it('refuses an upload larger than 512 MB as it says so (413 payload_too_large), before reading it, and closes the connection', async () => {
    const declared = 600 * 1024 * 1024;
    const answer = await new Promise<{ status: number; connection?: string; body: string }>((resolve, reject) => {
      const req = httpRequest(
        `${stack.admin.url}${ROUTE}/files`,
        {
          method: 'POST',
          headers: {
            authorization: `Bearer ${callers.operator}`,
            'content-type': 'multipart/form-data; boundary=x',
            'content-length': String(declared),
          },
        },
        (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString()));
          res.on('end', () => {
            resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body });
            req.destroy();
          });
        },
      );
      req.on('error', reject);
      req.write('--x\r\nContent-Disposition: form-data; name="filepath"\r\n\r\nbig.bin\r\n');
    });
    expect(answer.status).toBe(413);
    expect(answer.connection).toBe('close');
    expect((JSON.parse(answer.body) as { error: { code: string } }).error.code).toBe('payload_too_large');
    expect(await libraryBlobs()).toEqual([]);
  });

  it('refuses a template that breaks the library rules (400 invalid_parameter), a taken filepath (409) and a body over 2 MB (413)', async () => {
    const valid = { filepath: 't/a', title: 'T', text: 'Text' };
    await asOperator('POST', `${ROUTE}/templates`, valid);
    const refusals: [Record<string, unknown>, number, string][] = [
      [{ ...valid, filepath: '../t' }, 400, 'invalid_parameter'],
      [{ ...valid, filepath: 't/../../x' }, 400, 'invalid_parameter'],
      [{ ...valid, filepath: '/t' }, 400, 'invalid_parameter'],
      [{ ...valid, filepath: 't\u0000' }, 400, 'invalid_parameter'],
      [{ ...valid, filepath: undefined }, 400, 'invalid_parameter'],
      [{ ...valid, filepath: 't/b', title: 'two\nlines' }, 400, 'invalid_parameter'],
      [{ ...valid, filepath: 't/b', title: '' }, 400, 'invalid_parameter'],
      [{ ...valid, filepath: 't/b', title: undefined }, 400, 'invalid_parameter'],
      [{ ...valid, filepath: 't/b', text: '   ' }, 400, 'invalid_parameter'],
      [{ ...valid, filepath: 't/b', text: 'x'.repeat(100_001) }, 400, 'invalid_parameter'],
      [{ ...valid, filepath: 't/b', text: 'nul\u0000' }, 400, 'invalid_parameter'],
      [{ ...valid, filepath: 't/b', text: 'lone \udc00' }, 400, 'invalid_parameter'],
      [{ ...valid, filepath: 't/b', text: 42 }, 400, 'invalid_parameter'],
      [{ ...valid, filepath: 't/b', description: 'd'.repeat(2001) }, 400, 'invalid_parameter'],
      [valid, 409, 'conflict'],
    ];
    for (const [body, status, code] of refusals) {
      const answer = await asOperator('POST', `${ROUTE}/templates`, body);
      expect([body, answer.status, answer.body.error?.code]).toEqual([body, status, code]);
    }
    const oversized = JSON.stringify({ filepath: 't/big', title: 'T', text: 'x'.repeat(3 << 20) });
    expect((await asOperator('POST', `${ROUTE}/templates`, oversized)).status).toBe(413);
    expect(((await asOperator('GET', ROUTE)).body['items'] as LibraryItem[]).map((item) => item.filepath)).toEqual([
      't/a',
    ]);
  });

  it('writes an audit row of the operator (no tenant) for each publication and removal, without the content', async () => {
    const since = new Date();
    const file = await upload([
      { name: 'filepath', value: 'audited.txt' },
      { name: 'file', filename: 'a.txt', data: 'PRIVATE BYTES' },
    ]);
    const template = await asOperator('POST', `${ROUTE}/templates`, {
      filepath: 't/audited',
      title: 'T',
      text: 'PRIVATE TEXT',
    });
    await asOperator('DELETE', `${ROUTE}/${file.body['itemId'] as string}`);
    const rows = await auditRows(stack, 'library/', since, 3);
    expect(rows).toEqual([
      {
        resource: 'library/files/create',
        action: 'create',
        tenantId: null,
        meta: { itemId: file.body['itemId'], filepath: 'audited.txt', mimeType: 'text/plain', bytes: 13 },
      },
      {
        resource: 'library/templates/create',
        action: 'create',
        tenantId: null,
        meta: { itemId: template.body['itemId'], filepath: 't/audited' },
      },
      {
        resource: 'library/delete',
        action: 'delete',
        tenantId: null,
        meta: { itemId: file.body['itemId'], filepath: 'audited.txt' },
      },
    ]);
    expect(JSON.stringify(rows)).not.toContain('PRIVATE');
  });
});
