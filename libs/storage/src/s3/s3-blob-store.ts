import type * as S3 from '@aws-sdk/client-s3';
import type * as S3Storage from '@aws-sdk/lib-storage';
import { Readable, pipeline } from 'node:stream';
import { assertBlobKey, assertBlobPrefix, assertBlobRange } from '../blob-keys';
import { ByteLimit, abortReason } from '../byte-limit';
import {
  type BlobInfo,
  BlobNotFoundError,
  type BlobRange,
  type BlobStore,
  type BlobWriteOptions,
  type StoredBlob,
} from '../ports/blob-store';

export interface S3BlobStoreOptions {
  /** An S3-compatible service (MinIO, Ceph, ...); AWS's regional endpoint when absent. */
  endpoint?: string;
  region: string;
  bucket: string;
  /** Both or neither: without them the SDK's default chain. */
  accessKeyId?: string;
  secretAccessKey?: string;
  /** MinIO and most self-hosted services need it. */
  forcePathStyle: boolean;
  /** So one bucket may serve several installations. */
  prefix?: string;
  /** Memory per write is about partSize x (queueSize + 1). */
  partSizeBytes?: number;
  queueSize?: number;
}

// S3's smallest part (but the last).
const DEFAULT_PART_SIZE = 5 * 1024 * 1024;
const DEFAULT_QUEUE_SIZE = 2;

interface AwsSdk {
  s3: typeof S3;
  storage: typeof S3Storage;
}

// The AWS SDK is heavy, so it loads with a store's first call: only processes configured for S3 pay.
let loading: Promise<AwsSdk> | undefined;
/** Until loaded no error can be one of the SDK's. */
let loadedSdk: AwsSdk | undefined;

function loadSdk(): Promise<AwsSdk> {
  loading ??= Promise.all([import('@aws-sdk/client-s3'), import('@aws-sdk/lib-storage')]).then(([s3, storage]) => {
    loadedSdk = { s3, storage };
    return loadedSdk;
  });
  return loading;
}

const serviceError = (error: unknown): S3.S3ServiceException | undefined =>
  loadedSdk && error instanceof loadedSdk.s3.S3ServiceException ? error : undefined;

const statusOf = (error: unknown) => serviceError(error)?.$metadata.httpStatusCode;

const isNotFound = (error: unknown) => {
  const refusal = serviceError(error);
  return (
    refusal !== undefined &&
    (refusal.name === 'NoSuchKey' || refusal.name === 'NotFound' || refusal.$metadata.httpStatusCode === 404)
  );
};

/** Multipart uploads through the byte limit keep memory at a few parts; a failed one is aborted before put rejects. */
export class S3BlobStore implements BlobStore {
  private readonly clientConfig: S3.S3ClientConfig;
  private client: Promise<{ client: S3.S3Client; sdk: AwsSdk }> | undefined;
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly partSize: number;
  private readonly queueSize: number;

  constructor(options: S3BlobStoreOptions) {
    if (options.prefix) assertBlobPrefix(options.prefix);
    this.bucket = options.bucket;
    this.prefix = options.prefix ?? '';
    this.partSize = Math.max(options.partSizeBytes ?? DEFAULT_PART_SIZE, DEFAULT_PART_SIZE);
    this.queueSize = options.queueSize ?? DEFAULT_QUEUE_SIZE;
    const { accessKeyId, secretAccessKey } = options;
    this.clientConfig = {
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      region: options.region,
      forcePathStyle: options.forcePathStyle,
      ...(accessKeyId && secretAccessKey ? { credentials: { accessKeyId, secretAccessKey } } : {}),
      // Recent SDKs add CRC32 checksums and aws-chunked bodies, which many S3-compatible services refuse.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    };
  }

  private connected(): Promise<{ client: S3.S3Client; sdk: AwsSdk }> {
    this.client ??= loadSdk().then((sdk) => ({ client: new sdk.s3.S3Client(this.clientConfig), sdk }));
    return this.client;
  }

  async put(key: string, body: Readable, options: BlobWriteOptions = {}): Promise<StoredBlob> {
    assertBlobKey(key);
    const { signal, maxBytes, contentType } = options;
    if (signal?.aborted) {
      body.destroy();
      throw abortReason(signal);
    }
    const limit = new ByteLimit(maxBytes);
    // Every failure ends in `limit` failing, so the upload aborts its multipart upload before done()
    // rejects. (Upload's own abort() would reject done() with the multipart abort still to come.)
    let failure: Error | undefined;
    const fail = (error: Error) => {
      failure ??= error;
      if (!limit.destroyed) limit.destroy(error);
    };
    limit.on('error', () => undefined);
    pipeline(body, limit, (error) => {
      if (error) fail(error);
    });
    const onAbort = () => fail(abortReason(signal as AbortSignal));
    signal?.addEventListener('abort', onAbort, { once: true });
    let upload: S3Storage.Upload;
    try {
      const { client, sdk } = await this.connected();
      upload = new sdk.storage.Upload({
        client,
        params: {
          Bucket: this.bucket,
          Key: this.objectKey(key),
          Body: limit,
          ...(contentType ? { ContentType: contentType } : {}),
        },
        partSize: this.partSize,
        queueSize: this.queueSize,
        leavePartsOnError: false,
      });
    } catch (error) {
      // The SDK could not be loaded: nothing was sent.
      signal?.removeEventListener('abort', onAbort);
      fail(error instanceof Error ? error : new Error(String(error)));
      throw error;
    }
    try {
      await upload.done();
    } catch (error) {
      // Stop reading the body too.
      fail(error instanceof Error ? error : new Error(String(error)));
      throw failure ?? error;
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
    if (failure) {
      // Aborted while the last part was on its way: the object is there now, and the write must leave nothing.
      await this.delete(key);
      throw failure;
    }
    return { key, bytes: limit.bytes };
  }

  async get(key: string, range?: BlobRange): Promise<Readable> {
    assertBlobKey(key);
    if (range) assertBlobRange(range);
    try {
      const { client, sdk } = await this.connected();
      const object = await client.send(
        new sdk.s3.GetObjectCommand({
          Bucket: this.bucket,
          Key: this.objectKey(key),
          ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
        }),
      );
      if (!(object.Body instanceof Readable)) throw new Error('the S3 client returned no Node.js stream');
      return object.Body;
    } catch (error) {
      if (isNotFound(error)) throw new BlobNotFoundError(key);
      // A range that starts past the end: no bytes, as the filesystem store reads them.
      if (range && statusOf(error) === 416) return Readable.from([]);
      throw error;
    }
  }

  async stat(key: string): Promise<BlobInfo | null> {
    assertBlobKey(key);
    try {
      const { client, sdk } = await this.connected();
      const head = await client.send(new sdk.s3.HeadObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }));
      return { key, bytes: head.ContentLength ?? 0, lastModified: head.LastModified ?? new Date(0) };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    assertBlobKey(key);
    try {
      const { client, sdk } = await this.connected();
      await client.send(new sdk.s3.DeleteObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }));
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }

  async *list(prefix: string): AsyncIterable<BlobInfo> {
    assertBlobPrefix(prefix);
    const { client, sdk } = await this.connected();
    let continuationToken: string | undefined;
    do {
      const page = await client.send(
        new sdk.s3.ListObjectsV2Command({
          Bucket: this.bucket,
          Prefix: this.objectKey(prefix),
          ...(continuationToken ? { ContinuationToken: continuationToken } : {}),
        }),
      );
      for (const object of page.Contents ?? []) {
        if (!object.Key) continue;
        yield {
          key: object.Key.slice(this.prefix.length),
          bytes: object.Size ?? 0,
          lastModified: object.LastModified ?? new Date(0),
        };
      }
      continuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (continuationToken);
  }

  close(): void {
    void this.client?.then(
      ({ client }) => client.destroy(),
      () => undefined,
    );
  }

  private objectKey(key: string): string {
    return `${this.prefix}${key}`;
  }
}
