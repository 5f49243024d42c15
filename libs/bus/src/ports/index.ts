export * from './run-queue.port';
export * from './run-stream.port';
export * from './signals.port';
export * from './tokens';
export * from './counters.port';
export * from './email-queue.port';
