import {
  CallToolRequestSchema,
  InitializeRequestSchema,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  isJSONRPCRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { type JsonBody } from '@fed/server';

// Checks before the SDK sees a message (document 3, "MCP" and "Errors"): the SDK uses other codes in places
// (-32700 for JSON that is not JSON-RPC) and its own revision list, which an upgrade may extend.

/** Document 3, "Supported revisions"; the first is the one an unknown `initialize` version gets. */
export const SUPPORTED_PROTOCOL_VERSIONS = [
  '2025-11-25',
  '2025-06-18',
  '2025-03-26',
  '2024-11-05',
  '2024-10-07',
] as const;
export const LATEST_PROTOCOL_VERSION = SUPPORTED_PROTOCOL_VERSIONS[0];

export const JsonRpcCode = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** MCP over HTTP: an unsupported `MCP-Protocol-Version` (and the transport's other refusals). */
  unsupportedProtocolVersion: -32000,
} as const;

/** A whole-request refusal (`id: null`); `closeConnection` when the body was not fully read (not worth draining). */
export class McpHttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly closeConnection = false,
  ) {
    super(message);
    this.name = 'McpHttpError';
  }

  body(): string {
    return JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: this.code, message: this.message } });
  }
}

const invalidRequest = (message: string) => new McpHttpError(400, JsonRpcCode.invalidRequest, message);

/**
 * The one JSON-RPC message of a body: 413 over the limit, -32700 when not JSON, -32600 when too deep or big or not one
 * JSON-RPC 2.0 message (batches included: revisions from 2025-06-18 removed them).
 */
export function parseMessage(body: Exclude<JsonBody, { kind: 'aborted' }>, limitBytes: number): JSONRPCMessage {
  switch (body.kind) {
    case 'too_large':
      throw new McpHttpError(
        413,
        JsonRpcCode.invalidRequest,
        `Request Entity Too Large: the body is over ${limitBytes} bytes`,
        true,
      );
    case 'not_json':
      throw new McpHttpError(400, JsonRpcCode.parseError, 'Parse error: the body is not JSON');
    case 'too_complex':
      throw invalidRequest(`Invalid Request: ${body.reason}`);
    case 'json':
      return messageOf(body.value);
  }
}

function messageOf(value: unknown): JSONRPCMessage {
  if (Array.isArray(value)) throw invalidRequest('Invalid Request: batches are not supported; send one message');
  if (typeof value !== 'object' || value === null) throw invalidRequest('Invalid Request: not a JSON-RPC message');
  if ((value as { jsonrpc?: unknown }).jsonrpc !== '2.0')
    throw invalidRequest('Invalid Request: "jsonrpc" must be "2.0"');
  const parsed = JSONRPCMessageSchema.safeParse(value);
  if (!parsed.success) throw invalidRequest('Invalid Request: not a JSON-RPC request, notification or response');
  return parsed.data;
}

/**
 * Document 3's version table: an unsupported `MCP-Protocol-Version` (repeated headers arrive joined) is 400 -32000,
 * except on `initialize`, whose unknown revision is replaced by the latest before the SDK sees it.
 */
export function negotiate(message: JSONRPCMessage, versionHeader: string | undefined): JSONRPCMessage {
  if (isJSONRPCRequest(message) && message.method === 'initialize') {
    if (!message.params || isSupportedVersion(message.params.protocolVersion)) return message;
    return { ...message, params: { ...message.params, protocolVersion: LATEST_PROTOCOL_VERSION } };
  }
  if (versionHeader !== undefined && !isSupportedVersion(versionHeader)) {
    throw new McpHttpError(
      400,
      JsonRpcCode.unsupportedProtocolVersion,
      `Bad Request: unsupported MCP-Protocol-Version ${JSON.stringify(versionHeader.slice(0, 64))} (supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`,
    );
  }
  return message;
}

function isSupportedVersion(value: unknown): boolean {
  return (SUPPORTED_PROTOCOL_VERSIONS as readonly unknown[]).includes(value);
}

// The methods the endpoint serves, by the SDK's schemas of their requests. The SDK answers params that
// do not match them with -32603 (its parse error has no JSON-RPC code); they are -32602.
const REQUEST_SCHEMAS: Record<string, { safeParse(value: unknown): { success: boolean } }> = {
  initialize: InitializeRequestSchema,
  ping: PingRequestSchema,
  'tools/list': ListToolsRequestSchema,
  'tools/call': CallToolRequestSchema,
};

type JsonRpcErrorResponse = { jsonrpc: '2.0'; id: string | number; error: { code: number; message: string } };

/** -32602 for a served method's malformed params or an unknown tool (a protocol error in MCP); else undefined. */
export function invalidParamsError(
  message: JSONRPCMessage,
  toolNames: ReadonlySet<string>,
): JsonRpcErrorResponse | undefined {
  if (!isJSONRPCRequest(message)) return undefined;
  const invalidParams = (text: string): JsonRpcErrorResponse => ({
    jsonrpc: '2.0',
    id: message.id,
    error: { code: JsonRpcCode.invalidParams, message: text },
  });
  const schema = Object.hasOwn(REQUEST_SCHEMAS, message.method) ? REQUEST_SCHEMAS[message.method] : undefined;
  if (schema && !schema.safeParse(message).success) return invalidParams(`Invalid params of ${message.method}`);
  const name = message.method === 'tools/call' ? message.params?.name : undefined;
  if (typeof name === 'string' && !toolNames.has(name)) {
    return invalidParams(`Unknown tool: ${JSON.stringify(name.slice(0, 64))}`);
  }
  return undefined;
}
