export * from './tracing';
export * from './trace-context';
export * from './spans';
export * from './stream-trace';
