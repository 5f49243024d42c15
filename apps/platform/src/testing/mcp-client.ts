import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export const mcpUrl = (api: string) => `${api}/v1/mcp`;

/** The official SDK client on the endpoint, the bearer token in every request's headers. */
export async function connectMcp(api: string, token: string): Promise<Client> {
  const client = new Client({ name: 'platform-e2e', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl(api)), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

/** A tool error result's `{error}` (README of libs/protocols/src/mcp, "Tool errors"). */
export interface ToolErrorBody {
  code: string;
  message: string;
  retryable: boolean;
  reason?: string;
  conversationId?: string;
}

export function toolErrorOf(result: CallToolResult): ToolErrorBody {
  if (!result.isError) throw new Error(`expected a tool error, got ${JSON.stringify(result).slice(0, 500)}`);
  const [block] = result.content;
  if (block?.type !== 'text') throw new Error('a tool error holds one text block');
  return (JSON.parse(block.text) as { error: ToolErrorBody }).error;
}

/** A successful result's `structuredContent`, checked to be repeated as the first (JSON) text block. */
export function structuredOf<T>(result: CallToolResult): T {
  if (result.isError) throw new Error(`the tool failed: ${JSON.stringify(result.content).slice(0, 500)}`);
  const [block] = result.content;
  if (block?.type !== 'text' || JSON.stringify(JSON.parse(block.text)) !== JSON.stringify(result.structuredContent)) {
    throw new Error('structuredContent is not repeated as the first text block');
  }
  return result.structuredContent as T;
}

/** The MCP endpoint's answer to a bare `initialize` with `token` (plain fetch, for the refusals). */
export async function mcpInitialize(
  endpoint: string,
  token: string,
): Promise<{ status: number; challenge: string | null; body: string }> {
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
    }),
  });
  return { status: response.status, challenge: response.headers.get('www-authenticate'), body: await response.text() };
}
