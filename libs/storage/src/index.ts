export * from './ports/blob-store';
export { assertBlobKey, assertBlobPrefix } from './blob-keys';
export { FsBlobStore } from './fs/fs-blob-store';
export { S3BlobStore, type S3BlobStoreOptions } from './s3/s3-blob-store';
export { type OpenedBlobStore, type StorageConfig, openBlobStore } from './open-blob-store';
export { type UnreferencedBlobSweep, sweepUnreferencedBlobs } from './sweep-unreferenced-blobs';
