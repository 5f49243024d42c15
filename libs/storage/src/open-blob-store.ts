import { type ServiceConfig } from '@fed/config';
import { FsBlobStore } from './fs/fs-blob-store';
import { type BlobStore } from './ports/blob-store';
import { S3BlobStore } from './s3/s3-blob-store';

/** The `storage` section of an app's configuration (BLOB_STORE, BLOB_DIR, S3_*). */
export type StorageConfig = ServiceConfig['storage'];

export interface OpenedBlobStore {
  store: BlobStore;
  /** Releases connections (S3); the store is not used after. */
  close(): Promise<void>;
}

// A temporary file untouched this long belongs to a write that will never finish (its process died).
const TEMPORARY_FILE_AGE_MS = 3600_000;

/**
 * The process's BlobStore, as configured. A filesystem root is created (and its temporary files of
 * crashed writes swept) here, at start, so that a root that cannot be written stops the app at once;
 * an S3 store opens no connection before its first use.
 */
export async function openBlobStore(config: StorageConfig): Promise<OpenedBlobStore> {
  if (config.kind === 'fs') {
    const store = new FsBlobStore(config.dir);
    await store.prepare();
    await store.sweepTemporary(TEMPORARY_FILE_AGE_MS);
    return { store, close: async () => undefined };
  }
  const { bucket } = config.s3;
  // loadConfig refuses BLOB_STORE=s3 without S3_BUCKET; this guards configurations built by hand.
  if (!bucket) throw new Error('BLOB_STORE is s3 but S3_BUCKET is not set');
  const store = new S3BlobStore({ ...config.s3, bucket });
  return { store, close: async () => store.close() };
}
