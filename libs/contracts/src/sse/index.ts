export * from './chat-chunk';
export * from './sse-encoder';
