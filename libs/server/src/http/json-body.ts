import express, { type RequestHandler } from 'express';
import { type IncomingMessage } from 'node:http';

/**
 * Checked on the text before parsing: recursive walkers (class-transformer, translators) overflow the
 * stack on deep nesting, and millions of `{}` become millions of heap objects.
 */
export interface JsonBounds {
  maxDepth: number;
  maxContainers: number;
}

/** No request of the REST API or the protocols nests this deep. */
export const MAX_JSON_DEPTH = 64;
/** A chat send or A2A/MCP call carries one message of a few parts: far below this. */
export const MAX_JSON_CONTAINERS = 10_000;

/** The host's parser (REST) and the A2A and MCP endpoints. */
export const JSON_BOUNDS: JsonBounds = { maxDepth: MAX_JSON_DEPTH, maxContainers: MAX_JSON_CONTAINERS };

/** body-parser's convention for its own errors. */
export const JSON_REFUSED_TYPE = 'entity.json.refused';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
/** Past this many names, compared through a Set. */
const LINEAR_NAMES = 16;

/**
 * Also refuses an object that repeats a member name (I-JSON, RFC 7493 2.3: parsers disagree on which value
 * wins, so a proxy or a log could read another value than the service); names compare decoded.
 * Malformed JSON is left to the parser: on valid JSON this scan sees exactly the parser's tokens.
 */
export function jsonRefusal(text: string, bounds: JsonBounds = JSON_BOUNDS): string | undefined {
  let depth = 0;
  let containers = 0;
  // Per open container: the member names seen so far for an object, null for an array.
  const open: (string[] | Set<string> | null)[] = [];
  let atName = false;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const char = text.charCodeAt(i);
    if (char === QUOTE) {
      const end = stringEnd(text, i);
      if (end < 0) return undefined;
      if (atName) {
        const name = memberName(text, i, end);
        if (name === undefined) return undefined;
        const names = open[open.length - 1] as string[] | Set<string>;
        if (!addName(open, names, name)) {
          return `the request repeats the member name ${JSON.stringify(name.slice(0, 64))} in one object`;
        }
        atName = false;
      }
      i = end;
    } else if (char === OPEN_OBJECT || char === OPEN_ARRAY) {
      if (++depth > bounds.maxDepth) return `the request nests deeper than ${bounds.maxDepth} levels`;
      if (++containers > bounds.maxContainers) {
        return `the request holds more than ${bounds.maxContainers} objects and arrays`;
      }
      open.push(char === OPEN_OBJECT ? [] : null);
      atName = char === OPEN_OBJECT;
    } else if (char === CLOSE_OBJECT || char === CLOSE_ARRAY) {
      depth--;
      open.pop();
      atName = false;
    } else if (char === COMMA) {
      atName = open.length > 0 && open[open.length - 1] !== null;
    }
  }
  return undefined;
}

function stringEnd(text: string, start: number): number {
  let end = text.indexOf('"', start + 1);
  while (end > 0) {
    let backslashes = 0;
    for (let j = end - 1; j > start && text.charCodeAt(j) === BACKSLASH; j--) backslashes++;
    if (backslashes % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
  return -1;
}

/** Escapes decoded; undefined for a malformed one (the parser refuses it). */
function memberName(text: string, start: number, end: number): string | undefined {
  const raw = text.slice(start + 1, end);
  if (!raw.includes('\\')) return raw;
  try {
    return JSON.parse(text.slice(start, end + 1)) as string;
  } catch {
    return undefined;
  }
}

/** False when it is there already. */
function addName(open: (string[] | Set<string> | null)[], names: string[] | Set<string>, name: string): boolean {
  if (names instanceof Set) {
    if (names.has(name)) return false;
    names.add(name);
    return true;
  }
  if (names.includes(name)) return false;
  names.push(name);
  if (names.length > LINEAR_NAMES) open[open.length - 1] = new Set(names);
  return true;
}

export type BoundedJson =
  { kind: 'json'; value: unknown } | { kind: 'not_json' } | { kind: 'too_complex'; reason: string };

export function parseBoundedJson(bytes: Buffer | string, bounds: JsonBounds = JSON_BOUNDS): BoundedJson {
  const text = typeof bytes === 'string' ? bytes : bytes.toString('utf8');
  const reason = jsonRefusal(text, bounds);
  if (reason !== undefined) return { kind: 'too_complex', reason };
  try {
    return { kind: 'json', value: JSON.parse(text) as unknown };
  } catch {
    return { kind: 'not_json' };
  }
}

export type JsonBody = BoundedJson | { kind: 'too_large' } | { kind: 'aborted' };

/**
 * Undefined as soon as the body is known to be over `limitBytes`; the rest is drained unread, and the
 * caller answers 413. Rejects when the client goes away (`isClientGone` tells).
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

/** For a fast route; a client that goes away while sending is `aborted` (nothing to answer). */
export async function readJsonBody(
  req: IncomingMessage,
  limitBytes: number,
  bounds: JsonBounds = JSON_BOUNDS,
): Promise<JsonBody> {
  let body: Buffer | undefined;
  try {
    body = await readLimitedBody(req, limitBytes);
  } catch (error) {
    if (req.destroyed || (error as NodeJS.ErrnoException).code === 'ECONNRESET') return { kind: 'aborted' };
    throw error;
  }
  if (!body) return { kind: 'too_large' };
  return parseBoundedJson(body, bounds);
}

/** body-parser's error shape, which ApiExceptionFilter maps. */
export class JsonBodyRefused extends Error {
  readonly status: number;
  readonly type: string;
  /** body-parser's flag: the message may be shown to the client. */
  readonly expose = true;

  constructor(message: string, status = 400, type = JSON_REFUSED_TYPE) {
    super(message);
    this.name = 'JsonBodyRefused';
    this.status = status;
    this.type = type;
  }
}

/** JSON between systems is UTF-8 (RFC 8259 8.1, I-JSON): another charset is 415. */
export function boundedJsonParser(limit: string, bounds: JsonBounds = JSON_BOUNDS): RequestHandler {
  return express.json({
    limit,
    verify: (_req, _res, buffer, encoding) => {
      if (!/^utf-?8$/i.test(encoding)) {
        throw new JsonBodyRefused(`unsupported charset "${encoding.slice(0, 32)}"`, 415, 'charset.unsupported');
      }
      const reason = jsonRefusal(buffer.toString('utf8'), bounds);
      if (reason !== undefined) throw new JsonBodyRefused(reason);
    },
  });
}
