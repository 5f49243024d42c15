export * from './memory-entry.entity';
