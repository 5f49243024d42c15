export * from './ports';
export * from './memory/memory-signals';
