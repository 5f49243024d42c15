export * from './trace-context';
