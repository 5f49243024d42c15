export * from './email-job.v1';
