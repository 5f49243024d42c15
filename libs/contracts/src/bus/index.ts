export * from './email-job';
export * from './run-job';
export * from './signal-relay';
export * from './signals';
export * from './trace-context';
