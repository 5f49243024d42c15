export * from './chat-chunk';
export * from './sse-encoder';
export * from './external-ui';
