export * from './processes';
export * from './tcp-proxy';
export * from './redis-keys';
export * from './model-upstream';
export * from './sign-in';
export * from './runtime-process';
export * from './mcp-apps-server/mcp-apps-server';
export * from './test-documents';
