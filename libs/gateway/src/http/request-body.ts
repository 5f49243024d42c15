import { type JsonBounds, MAX_JSON_DEPTH, parseBoundedJson } from '@fed/server';
import { type IncomingMessage } from 'node:http';
import { GatewayError } from './gateway-error';

/** The spec's gateway body limit, as the providers' own. */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;

/**
 * More containers than the host's bounds (json-body.ts): a real 32 MB history holds hundreds of thousands.
 * A million keeps the worst body (32 MB of `{}`) to about 64 MB of heap.
 */
export const GATEWAY_JSON_BOUNDS: JsonBounds = { maxDepth: MAX_JSON_DEPTH, maxContainers: 1_000_000 };

const tooLarge = () =>
  new GatewayError('request_too_large', 'request_too_large', `the request body is over ${MAX_BODY_BYTES} bytes`, {
    connection: 'close',
  });

/** Refuses more than the limit as soon as it is known, declared or received. */
export function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(tooLarge());
  if (declared > 0 && req.readableLength === declared && !req.readableFlowing) {
    // A model call's body usually came with the headers and already waits in the buffer: taken at once,
    // sparing the stream's events a few event-loop turns. Paused, read() gives everything as one Buffer.
    const body = req.read() as Buffer;
    // Flowing with nothing left, the stream ends (and is released) when the parser closes it.
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

/**
 * Hand-parsed, not a ValidationPipe DTO: a fast route outside Nest. Duplicate member names and
 * GATEWAY_JSON_BOUNDS are refused before parsing.
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
