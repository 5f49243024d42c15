import { type ServiceConfig } from '@fed/config';
import { FsBlobStore } from './fs/fs-blob-store';
import { type BlobStore } from './ports/blob-store';
import { S3BlobStore } from './s3/s3-blob-store';

export type StorageConfig = ServiceConfig['storage'];

export interface OpenedBlobStore {
  store: BlobStore;
  /** The store is not used after. */
  close(): Promise<void>;
}

// Older temporary files belong to writes whose process died.
const TEMPORARY_FILE_AGE_MS = 3600_000;

/** A filesystem root is created and swept here, so one that cannot be written stops the app at once. */
export async function openBlobStore(config: StorageConfig): Promise<OpenedBlobStore> {
  if (config.kind === 'fs') {
    const store = new FsBlobStore(config.dir);
    await store.prepare();
    await store.sweepTemporary(TEMPORARY_FILE_AGE_MS);
    return { store, close: async () => undefined };
  }
  const { bucket } = config.s3;
  // loadConfig refuses this; guards configurations built by hand.
  if (!bucket) throw new Error('BLOB_STORE is s3 but S3_BUCKET is not set');
  const store = new S3BlobStore({ ...config.s3, bucket });
  return { store, close: async () => store.close() };
}
