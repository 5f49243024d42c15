import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type Dispatcher, Response as UndiciResponse, fetch as undiciFetch } from 'undici';

// The SDK reads JSON answers and SSE events whole before any bound of ours applies, so a huge answer would be held
// in memory; this fetch counts each answer's bytes as they arrive and stops at its bound.

const MiB = 1024 * 1024;

/** Largest answer to `tools/call`: the 100,000 characters the model gets and a 2 MiB embedded UI, JSON-escaped. */
export const RESULT_ANSWER_MAX_BYTES = 8 * MiB;
/** Largest answer to anything else (`initialize`, a page of `tools/list`, an error, the server's own SSE stream). */
export const OTHER_ANSWER_MAX_BYTES = 4 * MiB;

/** `resources/read` bound for a UI of `uiMaxBytes`: twice that (JSON escapes) plus the envelope. */
export function resourceAnswerMaxBytes(uiMaxBytes: number): number {
  return 2 * uiMaxBytes + 64 * 1024;
}

/** Bytes (after content decoding) an answer may have, per kind of request. */
export interface AnswerLimits {
  result: number;
  resource: number;
  other: number;
}

export function answerLimits(uiMaxBytes: number): AnswerLimits {
  return {
    result: RESULT_ANSWER_MAX_BYTES,
    resource: resourceAnswerMaxBytes(uiMaxBytes),
    other: OTHER_ANSWER_MAX_BYTES,
  };
}

/** An answer cut off at its bound: the call fails with this (lasting: the server answered, too much). */
export class ToolServerAnswerTooLargeError extends Error {
  constructor(
    readonly method: string,
    readonly limit: number,
  ) {
    super(`its answer to ${method} is larger than ${limitText(limit)}`);
    this.name = 'ToolServerAnswerTooLargeError';
  }
}

function limitText(bytes: number): string {
  return bytes % MiB === 0 ? `${bytes / MiB} MiB` : `${bytes} bytes`;
}

/** The cut-off behind a failed call: thrown as is (JSON), or the error's `data` for SSE (no server can make one). */
export function answerTooLarge(error: unknown): ToolServerAnswerTooLargeError | undefined {
  if (error instanceof ToolServerAnswerTooLargeError) return error;
  const data = (error as { data?: unknown } | null)?.data;
  return data instanceof ToolServerAnswerTooLargeError ? data : undefined;
}

/** The JSON-RPC method and request ids of a POST body the SDK wrote (our own JSON), to pick the bound. */
function requestsIn(body: unknown): { method: string; ids: (string | number)[] } {
  if (typeof body !== 'string') return { method: 'the server stream', ids: [] };
  let messages: unknown;
  try {
    messages = JSON.parse(body);
  } catch {
    return { method: 'a request', ids: [] };
  }
  const list = (Array.isArray(messages) ? messages : [messages]) as { method?: unknown; id?: unknown }[];
  const requests = list.filter((message) => typeof message?.method === 'string' && message.id !== undefined);
  return {
    method: String(requests[0]?.method ?? list[0]?.method ?? 'a request'),
    ids: requests.map((message) => message.id as string | number),
  };
}

function limitFor(method: string, limits: AnswerLimits): number {
  if (method === 'tools/call') return limits.result;
  if (method === 'resources/read') return limits.resource;
  return limits.other;
}

const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

export interface BoundedFetchOptions {
  dispatcher: Dispatcher;
  limits: AnswerLimits;
  /** Fails the requests of an SSE answer over its bound; the SDK would otherwise wait for their timeout. */
  failRequests(ids: readonly (string | number)[], error: ToolServerAnswerTooLargeError): void;
}

/** The fetch of a tool server's MCP transport: over the network's dispatcher, each answer bounded as it arrives. */
export function boundedFetch({ dispatcher, limits, failRequests }: BoundedFetchOptions): FetchLike {
  return async (url, init) => {
    const { method, ids } = requestsIn(init?.body);
    const limit = limitFor(method, limits);
    const response = await undiciFetch(url, { ...(init as object), dispatcher } as Parameters<typeof undiciFetch>[1]);
    const tooLarge = () => new ToolServerAnswerTooLargeError(method, limit);
    const declared = Number(response.headers.get('content-length') ?? NaN);
    if (declared > limit && response.headers.get('content-encoding') === null) {
      await response.body?.cancel().catch(() => undefined);
      throw tooLarge();
    }
    if (!response.body) return response as unknown as Response;
    const init2 = { status: response.status, statusText: response.statusText, headers: response.headers };
    const sse = /^text\/event-stream\s*(;|$)/i.test(response.headers.get('content-type') ?? '');
    if (sse && response.ok) {
      // Read by the SDK as it arrives (notifications before the result); cut at the bound.
      const body = cutAt(response.body, limit, () => {
        const error = tooLarge();
        failRequests(ids, error);
        return error;
      });
      return new UndiciResponse(body, init2) as unknown as Response;
    }
    // A JSON answer (or an error's text) is read whole by the SDK anyway: read here, at most `limit` bytes.
    const bytes = await readAtMost(response.body, limit, tooLarge);
    return new UndiciResponse(NULL_BODY_STATUSES.has(response.status) ? null : bytes, init2) as unknown as Response;
  };
}

/** The body's bytes, or `tooLarge()` thrown as soon as more than `limit` arrived (the rest is never read). */
async function readAtMost(
  body: ReadableStream<Uint8Array>,
  limit: number,
  tooLarge: () => Error,
): Promise<Uint8Array<ArrayBuffer>> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      const error = tooLarge();
      await reader.cancel(error).catch(() => undefined);
      throw error;
    }
    chunks.push(value);
  }
  return new Uint8Array(Buffer.concat(chunks));
}

/** The body as a stream read only when its reader asks (no read-ahead), erroring once more than `limit` passed. */
function cutAt(body: ReadableStream<Uint8Array>, limit: number, overflow: () => Error): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let total = 0;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) return controller.close();
        total += value.byteLength;
        if (total > limit) {
          const error = overflow();
          void reader.cancel(error).catch(() => undefined);
          return controller.error(error);
        }
        controller.enqueue(value);
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}
