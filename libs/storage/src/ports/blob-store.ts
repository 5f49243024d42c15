import type { Readable } from 'node:stream';

// The port between the platform and wherever file bytes live (uploads, deliverables, library
// files): a local directory in all-in-one mode, S3-compatible object storage in production. Keys are
// chosen by the owner of the bytes (`uploads/<fileId>`, ...); rows in PostgreSQL are the state of record.

export interface BlobWriteOptions {
  /** The write fails with `BlobTooLargeError` as soon as the body passes this many bytes. */
  maxBytes?: number;
  contentType?: string;
  /** Aborting fails the write; nothing is left behind. */
  signal?: AbortSignal;
}

export interface StoredBlob {
  key: string;
  bytes: number;
}

/** Inclusive byte offsets, as in an HTTP `Range` header. */
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
  /**
   * Streams `body` to `key` (replacing what was there) without holding it in memory. On any failure
   * (too large, the body errors or is cut off, aborted) nothing is left under `key` and the promise rejects.
   */
  put(key: string, body: Readable, options?: BlobWriteOptions): Promise<StoredBlob>;
  /** The bytes of `key` (or of one range of them); `BlobNotFoundError` when absent. */
  get(key: string, range?: BlobRange): Promise<Readable>;
  /** Size and age of `key`; null when absent. */
  stat(key: string): Promise<BlobInfo | null>;
  /** Idempotent. */
  delete(key: string): Promise<void>;
  /** Every blob whose key starts with `prefix` (for the sweeper). */
  list(prefix: string): AsyncIterable<BlobInfo>;
}

/** Nest injection token of the process's `BlobStore`. */
export const BLOB_STORE = Symbol.for('fed.storage.BlobStore');
