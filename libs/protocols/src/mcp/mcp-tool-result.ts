import { type ApiError, type ErrorCode } from '@fed/contracts';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/**
 * The `code` of a tool error result (README, "Tool errors"). NOT_FOUND, INVALID_PARAMS and
 * INSUFFICIENT_SCOPE are permanent; CONFLICT (a turn is running) and INTERNAL_ERROR are transient;
 * TURN_FAILED carries the failed turn's own `reason`.
 */
export enum McpToolErrorCode {
  NotFound = 'NOT_FOUND',
  InvalidParams = 'INVALID_PARAMS',
  InsufficientScope = 'INSUFFICIENT_SCOPE',
  Conflict = 'CONFLICT',
  TurnFailed = 'TURN_FAILED',
  InternalError = 'INTERNAL_ERROR',
}

export interface McpToolError {
  code: McpToolErrorCode;
  message: string;
  retryable: boolean;
  /** The platform's own code behind it (`conversation_archived`, `agent_failed`, ...), when there is one. */
  reason?: string;
  /** The conversation a failed turn belongs to. */
  conversationId?: string;
}

const RETRYABLE: Record<McpToolErrorCode, boolean> = {
  [McpToolErrorCode.NotFound]: false,
  [McpToolErrorCode.InvalidParams]: false,
  [McpToolErrorCode.InsufficientScope]: false,
  [McpToolErrorCode.Conflict]: true,
  [McpToolErrorCode.TurnFailed]: true,
  [McpToolErrorCode.InternalError]: true,
};

/** A successful tool result: `structuredContent`, repeated as one JSON text block, then `extra` blocks. */
export function toolResult(structured: Record<string, unknown>, extra: CallToolResult['content'] = []): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(structured) }, ...extra], structuredContent: structured };
}

/**
 * A tool error result: `isError` and one text block holding `{"error": {...}}`. No `structuredContent`:
 * MCP clients check it against the tool's output schema even on errors (the TypeScript SDK's
 * `Client.callTool` does), which would turn our error into a validation failure of theirs.
 */
export function toolError(
  code: McpToolErrorCode,
  message: string,
  more: Partial<Pick<McpToolError, 'reason' | 'conversationId' | 'retryable'>> = {},
): CallToolResult {
  const error: McpToolError = { code, message, retryable: RETRYABLE[code], ...more };
  return { content: [{ type: 'text', text: JSON.stringify({ error }) }], isError: true };
}

/** The platform's refusals in the tools' vocabulary; anything else is the caller's to log as INTERNAL_ERROR. */
export function toolErrorOf(error: ApiError): CallToolResult {
  return toolError(toolCodeOf(error.code), error.message, { reason: error.code });
}

function toolCodeOf(code: ErrorCode): McpToolErrorCode {
  switch (code) {
    case 'conversation_not_found':
    case 'not_found':
    case 'file_too_large':
      return McpToolErrorCode.NotFound;
    case 'invalid_request':
    case 'invalid_parameter':
    case 'invalid_cursor':
    case 'invalid_json':
    case 'invalid_conversation_id':
    case 'conversation_archived':
    case 'payload_too_large':
    case 'unsupported_media_type':
    case 'range_not_satisfiable':
    case 'method_not_allowed':
    // The Marketplace edition's (which has no MCP); listed so that the table stays whole.
    case 'agent_id_required':
    case 'agent_id_mismatch':
    case 'agent_not_found':
    case 'agent_disabled':
      return McpToolErrorCode.InvalidParams;
    case 'insufficient_scope':
    case 'service_account_required':
    // Master data's (which no tool changes); listed so that the table stays whole.
    case 'platform_entry_read_only':
      return McpToolErrorCode.InsufficientScope;
    case 'conflict':
    case 'conversation_processing':
      return McpToolErrorCode.Conflict;
    // The token was verified before any tool ran: one refused inside a tool is our fault, not the caller's.
    case 'invalid_token':
    case 'rate_limited':
    case 'monthly_quota_exceeded':
    case 'internal_error':
    case 'upstream_api_error':
    case 'upstream_timeout':
    case 'service_unavailable':
      return McpToolErrorCode.InternalError;
  }
}
