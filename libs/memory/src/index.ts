export * from './memory-entry.entity';
export * from './memory-store';
