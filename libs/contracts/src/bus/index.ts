export * from './run-job';
export * from './signals';
