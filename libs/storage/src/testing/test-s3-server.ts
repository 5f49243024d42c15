import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import S3rver from 's3rver';

export interface TestS3Server {
  /** Use it with `forcePathStyle: true`. */
  endpoint: string;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  pendingMultipartUploads(): Promise<number>;
  close(): Promise<void>;
}

export interface TestS3ServerOptions {
  /** To stall a request, or act while it is on its way. */
  beforeRequest?(request: { method: string; path: string; query: Record<string, unknown> }): Promise<void>;
}

// s3rver checks signatures against this fixed pair.
const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
const UPLOADS_DIR = '._S3rver_uploads';
const UPLOAD_ID = /^[0-9a-f]{32}$/;

async function* firstByteOf(stream: Readable): AsyncGenerator<Buffer> {
  for await (const chunk of stream) {
    yield (chunk as Buffer).subarray(0, 1);
    break;
  }
}

/** s3rver lacks AbortMultipartUpload and misreads `Range: bytes=0-0`: both are mended here. */
export async function startTestS3Server(options: TestS3ServerOptions = {}): Promise<TestS3Server> {
  const directory = await mkdtemp(path.join(tmpdir(), 'fed-s3-'));
  const bucket = 'test-bucket';
  const uploadsOf = (name: string) => path.join(directory, name, UPLOADS_DIR);
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: bucket }],
  });
  server.middleware.unshift(async (context, next) => {
    await options.beforeRequest?.({ method: context.method, path: context.path, query: context.query });
    return next();
  });
  // s3rver reads `bytes=0-0` as the whole object: cut it to the first byte.
  server.middleware.unshift(async (context, next) => {
    if (context.method !== 'GET' || context.get('range') !== 'bytes=0-0') return next();
    await next();
    const whole = context.body;
    if (context.status !== 206 || !(whole instanceof Readable)) return;
    const size = /\/(\d+)$/.exec(context.get('content-range'))?.[1] ?? '*';
    context.body = Readable.from(firstByteOf(whole));
    context.length = 1;
    context.set('Content-Range', `bytes 0-0/${size}`);
  });
  server.middleware.unshift(async (context, next) => {
    const uploadId = context.query.uploadId;
    if (context.method !== 'DELETE' || typeof uploadId !== 'string') return next();
    const name = context.path.split('/')[1] ?? '';
    if (!UPLOAD_ID.test(uploadId) || !/^[a-z0-9.-]+$/.test(name)) {
      context.status = 404;
      return;
    }
    await rm(path.join(uploadsOf(name), uploadId), { recursive: true, force: true });
    context.status = 204;
  });
  const address = await server.run();
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    region: 'us-east-1',
    bucket,
    ...CREDENTIALS,
    pendingMultipartUploads: async () => (await readdir(uploadsOf(bucket)).catch(() => [])).length,
    close: async () => {
      server.httpServer?.closeAllConnections();
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
