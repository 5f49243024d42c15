export * from './blob-store.contract';
export * from './test-s3-server';
