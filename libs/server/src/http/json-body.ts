import express, { type RequestHandler } from 'express';
import { type IncomingMessage } from 'node:http';

/**
 * How far one JSON body may go, checked on its text before it is parsed: how deep objects and arrays
 * nest, and how many there are. Code that walks a parsed value recursively (class-transformer,
 * re-serializing, translating) overflows the stack on deep nesting, and millions of `{}` become
 * millions of heap objects (24 MB of them take about 500 MB).
 */
export interface JsonBounds {
  maxDepth: number;
  maxContainers: number;
}

/** Deeper JSON is refused before it is parsed (no request of the REST API or the protocols nests this deep). */
export const MAX_JSON_DEPTH = 64;
/**
 * Objects and arrays one REST or protocol request may hold. A chat send or A2A/MCP call carries one
 * message of a few parts and at most 20 files (base64 strings, not containers): far below this.
 */
export const MAX_JSON_CONTAINERS = 10_000;

/** The bounds of every body the host's parser reads (REST) and of the A2A and MCP endpoints. */
export const JSON_BOUNDS: JsonBounds = { maxDepth: MAX_JSON_DEPTH, maxContainers: MAX_JSON_CONTAINERS };

/** The `type` of the host parser's refusal (body-parser's convention for its own errors). */
export const JSON_REFUSED_TYPE = 'entity.json.refused';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
/** Up to this many member names an object's names are compared one by one; past it, through a Set. */
const LINEAR_NAMES = 16;

/**
 * Why this JSON text is refused before parsing, or undefined: nested deeper than `maxDepth`, more than
 * `maxContainers` objects and arrays, or an object that repeats a member name (I-JSON, RFC 7493 2.3:
 * parsers disagree on which value wins, so a proxy or a log could read another value than the service;
 * names compare as the parser decodes them, `"a"` and `"\u0061"` alike).
 *
 * One pass over the text outside strings, which are skipped with indexOf. Malformed JSON is left to the
 * parser: on valid JSON this scan sees exactly the parser's tokens, on anything else the parser refuses.
 */
export function jsonRefusal(text: string, bounds: JsonBounds = JSON_BOUNDS): string | undefined {
  let depth = 0;
  let containers = 0;
  // Per open container: the member names seen so far for an object, null for an array.
  const open: (string[] | Set<string> | null)[] = [];
  // The next string is a member name: right after `{`, or after `,` in an object.
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

/** The index of the quote that closes the string opening at `start`, or -1. */
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

/** The name as the parser reads it (escapes decoded), or undefined for a malformed one (the parser refuses it). */
function memberName(text: string, start: number, end: number): string | undefined {
  const raw = text.slice(start + 1, end);
  if (!raw.includes('\\')) return raw;
  try {
    return JSON.parse(text.slice(start, end + 1)) as string;
  } catch {
    return undefined;
  }
}

/** Adds `name` to the innermost object's names; false when it is there already. */
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

/** A JSON text parsed after `jsonRefusal` let it through, or why not. */
export type BoundedJson =
  { kind: 'json'; value: unknown } | { kind: 'not_json' } | { kind: 'too_complex'; reason: string };

/** `bytes` (UTF-8) checked against `bounds`, then parsed. */
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

/** A request body read as JSON, or why not. */
export type JsonBody = BoundedJson | { kind: 'too_large' } | { kind: 'aborted' };

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
 * The body of a route that reads its own (a fast route), parsed as JSON within `bounds` (parseBoundedJson):
 * over `limitBytes` it is not read further. A client that goes away while sending it is `aborted`
 * (nothing to answer).
 */
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

/** body-parser's shape of an error: a status and a `type` (ApiExceptionFilter maps them). */
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

/**
 * The host's parser of `application/json` bodies (every Nest route): body-parser's reading (size limit,
 * Content-Encoding), then `jsonRefusal` on the text before body-parser parses it. JSON between systems
 * is UTF-8 (RFC 8259 8.1, I-JSON): another charset is 415.
 */
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
