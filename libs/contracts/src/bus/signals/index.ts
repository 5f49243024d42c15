export * from './signal-topics';
