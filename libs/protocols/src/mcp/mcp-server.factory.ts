import { type ConversationOwner } from '@fed/conversations';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { type McpTool } from './mcp-tool';

const SERVER_INFO = { name: 'federation-platform', version: '1.0.0' };

/** The server of one request (stateless MCP: a server per request), its tools bound to the caller. */
export class McpServerFactory {
  readonly toolNames: ReadonlySet<string>;

  constructor(private readonly tools: readonly McpTool[]) {
    this.toolNames = new Set(tools.map((tool) => tool.name));
  }

  create(owner: ConversationOwner): McpServer {
    const server = new McpServer(SERVER_INFO, { capabilities: { tools: {} } });
    for (const tool of this.tools) tool.register(server, owner);
    return server;
  }
}
