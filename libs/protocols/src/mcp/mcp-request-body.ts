import { type IncomingMessage } from 'node:http';
import { headerValue } from '../turns';
import { JsonRpcCode, McpHttpError } from './mcp-protocol';

const JSON_MEDIA_TYPE = /^application\/json\s*(;.*)?$/i;
/** What the SDK's transport insists on seeing (the MCP transport spec's MUST), whatever the client sent. */
const SDK_ACCEPT = 'application/json, text/event-stream';

/**
 * 415 unless the body is declared JSON (document 3: `Content-Type: application/json` is required). -32600,
 * not the SDK's -32000: that code is the unsupported protocol version's (document 3, "Errors").
 */
export function checkContentType(req: IncomingMessage): void {
  if (!JSON_MEDIA_TYPE.test(headerValue(req, 'content-type') ?? '')) {
    throw new McpHttpError(
      415,
      JsonRpcCode.invalidRequest,
      'Unsupported Media Type: Content-Type must be application/json',
      true,
    );
  }
}

/** DNS rebinding (MCP transport security): a browser `Origin` other than ours is 403; no `Origin` passes. */
export function checkOrigin(req: IncomingMessage, allowedOrigin: string): void {
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== allowedOrigin) {
    throw new McpHttpError(
      403,
      JsonRpcCode.invalidRequest,
      'Forbidden: requests from this Origin are not accepted',
      true,
    );
  }
}

/** Whether `Accept` names `text/event-stream` (not `q=0`); document 3 requires no `Accept`, so none gets JSON. */
export function acceptsEventStream(req: IncomingMessage): boolean {
  return (headerValue(req, 'accept') ?? '').split(',').some((range) => {
    const [type, ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    return type === 'text/event-stream' && !params.some((param) => /^q=0(\.0*)?$/.test(param));
  });
}

/** Shows the SDK the `Accept` it requires (else 406) in parsed and raw headers; the answer form was already chosen. */
export function presentSdkAccept(req: IncomingMessage): void {
  const raw: string[] = [];
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i] as string;
    if (name.toLowerCase() !== 'accept') raw.push(name, req.rawHeaders[i + 1] as string);
  }
  req.rawHeaders = [...raw, 'Accept', SDK_ACCEPT];
  req.headers.accept = SDK_ACCEPT;
}
