import { type IncomingMessage } from 'node:http';

/** Deeper JSON is refused before it is parsed (nothing in a protocol request nests this deep). */
export const MAX_JSON_DEPTH = 64;
/**
 * Objects and arrays one request may hold. A send carries one message of a few parts and at most 20 files
 * (base64 strings, not containers); the cap keeps a body of millions of `{}` from becoming millions of
 * objects on the heap (24 MB of them take about 500 MB).
 */
export const MAX_JSON_CONTAINERS = 10_000;

/** A request body read as JSON, or why not. */
export type JsonBody =
  | { kind: 'json'; value: unknown }
  | { kind: 'too_large' }
  | { kind: 'aborted' }
  | { kind: 'not_json' }
  | { kind: 'too_complex'; reason: string };

/**
 * The whole request body, or undefined as soon as it is known to be over `limitBytes` (declared or
 * streamed); the rest is then drained unread, and the caller answers 413 and closes the connection.
 * Rejects when the client goes away mid-body (`isClientGone` tells).
 */
export async function readLimitedBody(req: IncomingMessage, limitBytes: number): Promise<Buffer | undefined> {
  if (Number(req.headers['content-length'] ?? 0) > limitBytes) {
    req.resume();
    return undefined;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limitBytes) {
      req.resume();
      return undefined;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

/**
 * The body parsed as JSON after its shape was checked on the raw bytes: over `limitBytes`, nested deeper
 * than MAX_JSON_DEPTH or holding more than MAX_JSON_CONTAINERS objects and arrays, it is refused without
 * being parsed. A client that goes away while sending it is `aborted` (nothing to answer).
 */
export async function readJsonBody(req: IncomingMessage, limitBytes: number): Promise<JsonBody> {
  let body: Buffer | undefined;
  try {
    body = await readLimitedBody(req, limitBytes);
  } catch (error) {
    if (req.destroyed || (error as NodeJS.ErrnoException).code === 'ECONNRESET') return { kind: 'aborted' };
    throw error;
  }
  if (!body) return { kind: 'too_large' };
  const refusal = shapeRefusal(body);
  if (refusal) return { kind: 'too_complex', reason: refusal };
  try {
    return { kind: 'json', value: JSON.parse(body.toString('utf8')) as unknown };
  } catch {
    return { kind: 'not_json' };
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPENERS = new Set([0x5b, 0x7b]); // [ {
const CLOSERS = new Set([0x5d, 0x7d]); // ] }

/**
 * One pass over the bytes, outside strings: how deep brackets nest and how many open. Malformed JSON is
 * left to the parser (this only counts); UTF-8 continuation bytes never equal these ASCII codes.
 */
function shapeRefusal(body: Buffer): string | undefined {
  let depth = 0;
  let containers = 0;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const byte = body[i] as number;
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (OPENERS.has(byte)) {
      if (++depth > MAX_JSON_DEPTH) return `the request nests deeper than ${MAX_JSON_DEPTH} levels`;
      if (++containers > MAX_JSON_CONTAINERS) {
        return `the request holds more than ${MAX_JSON_CONTAINERS} objects and arrays`;
      }
    } else if (CLOSERS.has(byte)) {
      depth--;
    }
  }
  return undefined;
}
