import { type JsonBounds, MAX_JSON_DEPTH, parseBoundedJson } from '@fed/server';
import { type IncomingMessage } from 'node:http';
import { GatewayError } from './gateway-error';

/** The spec's gateway body limit (32 MB, as the providers' own). */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;

/**
 * The gateway's bounds on a body (the host's check, json-body.ts, with a larger container count). A
 * 32 MB conversation history is legitimately dense: 114,000 messages of text parts and tool calls took
 * 380,000 objects and arrays in our measurement, so the REST API's 10,000 would refuse real clients.
 * A million keeps the worst body (32 MB of `{}`, 10 million objects, 640 MB of heap: more than the
 * gateway's 768 MiB pod) to about 64 MB of heap, the size of the body's own text.
 */
export const GATEWAY_JSON_BOUNDS: JsonBounds = { maxDepth: MAX_JSON_DEPTH, maxContainers: 1_000_000 };

const tooLarge = () =>
  new GatewayError('request_too_large', 'request_too_large', `the request body is over ${MAX_BODY_BYTES} bytes`, {
    connection: 'close',
  });

/** Reads the whole body, refusing more than the limit as soon as it is known (declared or received). */
export function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(tooLarge());
  if (declared > 0 && req.readableLength === declared && !req.readableFlowing) {
    // The whole body (as many bytes as Content-Length says) already waits in the stream's buffer, as
    // it usually does for a model call (it came in the packets of the headers): taken at once, rather
    // than through the stream's events, which cost a few event-loop turns on every call.
    // Paused, read() without a size gives everything buffered, as one Buffer.
    const body = req.read() as Buffer;
    // Flowing, with nothing left to give, the stream ends (and is released) when the parser closes it.
    req.resume();
    return Promise.resolve(body);
  }
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        req.resume();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size)));
    req.once('error', reject);
    req.once('aborted', () => reject(new Error('client aborted the request body')));
  });
}

// Hand-parsed, not a ValidationPipe DTO: a fast route outside Nest, added p50 < 0.5 ms (figures: README, Benchmarks).
/**
 * A JSON object body, or a 400 in the family's format: malformed, not an object, over GATEWAY_JSON_BOUNDS
 * (depth, objects and arrays) or repeating a member name in one object, the last two refused before parsing.
 */
export function parseJsonObject(body: Buffer): Record<string, unknown> {
  const parsed = parseBoundedJson(body, GATEWAY_JSON_BOUNDS);
  if (parsed.kind === 'too_complex') {
    throw new GatewayError('invalid_request', 'invalid_json', `could not parse the request body: ${parsed.reason}`);
  }
  if (parsed.kind === 'not_json') {
    throw new GatewayError('invalid_request', 'invalid_json', 'could not parse the request body: it is not valid JSON');
  }
  const value = parsed.value;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new GatewayError('invalid_request', 'invalid_json', 'the request body must be a JSON object');
  }
  return value as Record<string, unknown>;
}
