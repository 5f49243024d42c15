export * from './ports/blob-store';
