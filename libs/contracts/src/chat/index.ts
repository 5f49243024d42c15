export * from './chat-request';
export * from './chat-response';
export * from './chat-turn';
