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

// What `POST /api/v1/mcp` checks before the SDK sees a message (document 3, "MCP" and "Errors"): the
// SDK answers most of these itself, but with other codes in places (-32700 for a message that is JSON
// but not JSON-RPC) and with its own list of revisions, which an upgrade may extend. Ours is the spec's.

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

/**
 * A refusal of the request as a whole: an HTTP status with a JSON-RPC error body (`id: null`).
 * `closeConnection` when the body was left unread (or only partly read): draining it is not worth it.
 */
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
 * The one JSON-RPC message of a request body (read by `readJsonBody`): 413 over the limit, -32700 when
 * it is not JSON, -32600 when it is too deep or too big to parse or not one JSON-RPC 2.0 message (a
 * batch included: the 2025-06-18 and later revisions removed batching, and one request carrying one
 * message keeps the body limit and the turn per call simple).
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
 * The spec's version table for one message: `MCP-Protocol-Version` outside the list is 400 with
 * -32000 on everything but `initialize` (repeated headers arrive joined, `a, b`, and are outside it
 * too). An `initialize` asking for a revision we do not support is answered with the latest one, so
 * it reaches the SDK asking for that.
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

/**
 * -32602 for a request to a method we serve whose params are malformed, or for `tools/call` naming a
 * tool we do not have (MCP: unknown tools are a protocol error; the SDK would answer a tool result with
 * `isError`). Undefined when the SDK may take the message.
 */
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
