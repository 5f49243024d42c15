// A2A and MCP (document 3): thin front doors over the chat turn pipeline (docs/protocols.md).
export * from './turns';
export * from './a2a';
export * from './mcp';
