export * from './auth';
export * from './bus';
export * from './chat';
export * from './errors';
export * from './pagination';
export * from './sse';
export * from './text';
