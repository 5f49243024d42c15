export * from './run-job.v1';
