import { Readable } from 'node:stream';
import { blobStoreContract } from '../testing/blob-store.contract';
import { type TestS3Server, startTestS3Server } from '../testing/test-s3-server';
import { S3BlobStore } from './s3-blob-store';

blobStoreContract('S3', async () => {
  const server = await startTestS3Server();
  const store = new S3BlobStore({ ...server, forcePathStyle: true });
  return {
    store,
    leftovers: () => server.pendingMultipartUploads(),
    close: async () => {
      store.close();
      await server.close();
    },
  };
});

describe('the S3 blob store', () => {
  let server: TestS3Server;
  let beforeRequest: (request: { method: string; path: string; query: Record<string, unknown> }) => Promise<void>;

  beforeAll(async () => {
    server = await startTestS3Server({ beforeRequest: (request) => beforeRequest(request) });
  });
  beforeEach(() => {
    beforeRequest = async () => undefined;
  });
  afterAll(() => server.close());

  it('keeps the blobs of a key prefix apart from the rest of the bucket', async () => {
    const first = new S3BlobStore({ ...server, forcePathStyle: true, prefix: 'install-1/' });
    const second = new S3BlobStore({ ...server, forcePathStyle: true, prefix: 'install-2/' });
    try {
      await first.put('uploads/a', Readable.from([Buffer.from('one')]));
      await second.put('uploads/a', Readable.from([Buffer.from('two')]));
      const listed = [];
      for await (const info of first.list('uploads/')) listed.push(info.key);
      expect(listed).toEqual(['uploads/a']);
      const chunks: Buffer[] = [];
      for await (const chunk of await second.get('uploads/a')) chunks.push(chunk as Buffer);
      expect(Buffer.concat(chunks).toString()).toBe('two');
    } finally {
      first.close();
      second.close();
    }
  });

  it('deletes an object whose upload an abort reached too late to stop', async () => {
    const store = new S3BlobStore({ ...server, forcePathStyle: true });
    const controller = new AbortController();
    // The abort comes while the single PUT, with the whole body, is already on its way.
    beforeRequest = async ({ method, path }) => {
      if (method === 'PUT' && path.endsWith('/late')) controller.abort(new Error('too late'));
    };
    try {
      const writing = store.put('late', Readable.from([Buffer.from('complete body')]), { signal: controller.signal });
      await expect(writing).rejects.toThrow('too late');
      expect(await store.stat('late')).toBeNull();
    } finally {
      store.close();
    }
  });
});
