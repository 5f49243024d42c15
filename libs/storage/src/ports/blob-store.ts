import type { Readable } from 'node:stream';

// A local directory in all-in-one mode, S3-compatible storage in production. Keys are chosen by the owner
// of the bytes, never by users; rows in PostgreSQL are the state of record.

export interface BlobWriteOptions {
  /** Fails with `BlobTooLargeError` as soon as the body passes this many bytes. */
  maxBytes?: number;
  contentType?: string;
  /** Nothing is left behind. */
  signal?: AbortSignal;
}

export interface StoredBlob {
  key: string;
  bytes: number;
}

/** Inclusive, as in an HTTP `Range` header. */
export interface BlobRange {
  start: number;
  end: number;
}

export interface BlobInfo {
  key: string;
  bytes: number;
  lastModified: Date;
}

export class BlobTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`the body is larger than ${limit} bytes`);
    this.name = 'BlobTooLargeError';
  }
}

export class BlobNotFoundError extends Error {
  constructor(readonly key: string) {
    super(`no blob ${key}`);
    this.name = 'BlobNotFoundError';
  }
}

export interface BlobStore {
  /** Streamed, never held in memory. On any failure nothing is left under `key`. */
  put(key: string, body: Readable, options?: BlobWriteOptions): Promise<StoredBlob>;
  /** `BlobNotFoundError` when absent. */
  get(key: string, range?: BlobRange): Promise<Readable>;
  /** Null when absent. */
  stat(key: string): Promise<BlobInfo | null>;
  /** Idempotent. */
  delete(key: string): Promise<void>;
  list(prefix: string): AsyncIterable<BlobInfo>;
}

export const BLOB_STORE = Symbol.for('fed.storage.BlobStore');
