import { ApiError, DomainError } from '@fed/contracts';
import { type ConversationOwner } from '@fed/conversations';
import { type Logger } from '@fed/observability';
import { type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { type RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { type CallToolResult, type ServerNotification, type ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { randomUUID } from 'node:crypto';
import { McpToolErrorCode, toolError, toolErrorOf } from './mcp-tool-result';

/** What a tool handler gets besides its arguments: the request's abort signal, `_meta`, notifications. */
export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** One tool of the endpoint: it registers itself on the server made for a request, bound to the caller. */
export interface McpTool {
  readonly name: string;
  register(server: McpServer, owner: ConversationOwner): void;
}

/** Runs a tool: platform refusals become tool errors; anything else is logged and answered INTERNAL_ERROR by id. */
export async function settle(
  logger: Logger,
  tool: string,
  work: () => Promise<CallToolResult>,
): Promise<CallToolResult> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof DomainError) return toolErrorOf(error.toApiError());
    if (error instanceof ApiError) return toolErrorOf(error);
    const errorId = randomUUID();
    logger.error({ err: error, errorId, tool }, 'MCP tool failed');
    return toolError(McpToolErrorCode.InternalError, `internal error (errorId ${errorId})`);
  }
}
