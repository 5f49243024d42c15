import { type IncomingMessage } from 'node:http';
import { readLimitedBody } from '../turns/request-body';
import { JsonRpcCode, McpHttpError } from './mcp-protocol';

const JSON_MEDIA_TYPE = /^application\/json\s*(;.*)?$/i;

/** 415 unless the body is declared JSON (document 3: `Content-Type: application/json` is required). */
export function checkContentType(req: IncomingMessage): void {
  if (!JSON_MEDIA_TYPE.test(req.headers['content-type'] ?? '')) {
    throw new McpHttpError(
      415,
      JsonRpcCode.unsupportedProtocolVersion,
      'Unsupported Media Type: Content-Type must be application/json',
    );
  }
}

/**
 * The request body, at most `limitBytes`: a declared or streamed larger one is 413 before more of it
 * is held in memory. The caller closes the connection after answering.
 */
export async function readBody(req: IncomingMessage, limitBytes: number): Promise<Buffer> {
  const body = await readLimitedBody(req, limitBytes);
  if (!body) {
    throw new McpHttpError(
      413,
      JsonRpcCode.invalidRequest,
      `Request Entity Too Large: the body is over ${limitBytes} bytes`,
    );
  }
  return body;
}

/**
 * DNS rebinding (MCP transport security): a browser's request whose `Origin` is not the service's own
 * public origin is 403. Requests without `Origin` (every non-browser client) pass.
 */
export function checkOrigin(req: IncomingMessage, allowedOrigin: string): void {
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== allowedOrigin) {
    throw new McpHttpError(403, JsonRpcCode.invalidRequest, 'Forbidden: requests from this Origin are not accepted');
  }
}
