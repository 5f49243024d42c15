import { createParser } from 'eventsource-parser';
import { type ServerResponse } from 'node:http';
import { type ApiFamily, GatewayError } from '../http/gateway-error';
import { type Exchange } from '../http/exchange';
import { type UpstreamAnswer, headerOf } from '../upstream/upstream-client';
import { encodeAnthropicEvent, encodeChatChunk } from '../translate';
import { type TokenUsage } from '../usage/token-usage';
import { type StreamKind, StreamObserver } from './stream-observer';

export interface StreamTranslator<E> {
  push(event: E): string;
  end(): string;
  usage(): TokenUsage;
  reportedUsage(): boolean;
}

export interface StreamOutcome {
  reported: TokenUsage | null;
  /** Messages family: reported before the end. */
  reportedInput: number | null;
  outputChars: number;
  /** Not the client's doing. */
  broken: boolean;
}

const UPSTREAM_ERROR_BODY_LIMIT = 64 * 1024;

/** Waits for the socket when its buffer is full, or for the client to go away. */
function write(res: ServerResponse, data: string | Buffer): Promise<void> | undefined {
  if (res.destroyed) return undefined;
  if (res.write(data)) return undefined;
  return new Promise<void>((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

export function startEventStream(res: ServerResponse): void {
  res.statusCode = 200;
  res.setHeader('content-type', 'text/event-stream; charset=utf-8');
  res.setHeader('cache-control', 'no-cache');
  res.setHeader('x-accel-buffering', 'no');
  res.flushHeaders();
}

/** Ends the client's stream with an error event in its family. */
async function reportBrokenStream(exchange: Exchange, answer: UpstreamAnswer, error: unknown): Promise<boolean> {
  if (exchange.clientAborted) return false;
  answer.brokeOff?.(error);
  await write(
    exchange.res,
    streamErrorEvent(exchange.family, `the provider's stream broke: ${(error as Error).message}`),
  );
  return true;
}

function streamErrorEvent(family: ApiFamily, message: string): string {
  return family === 'messages'
    ? encodeAnthropicEvent({ type: 'error', error: { type: 'api_error', message } })
    : encodeChatChunk({ error: { message, type: 'api_error', param: null, code: 'upstream_error' } });
}

/**
 * Byte for byte, read beside by the observer. With `dropUsageChunk` (usage the client did not ask for),
 * events are written whole as received, except the usage-only chunk.
 */
export async function relaySameFamilyStream(
  exchange: Exchange,
  answer: UpstreamAnswer,
  kind: StreamKind,
  options: { dropUsageChunk: boolean },
): Promise<StreamOutcome> {
  const { res } = exchange;
  const observer = new StreamObserver(kind);
  const parser = createParser({ onEvent: (event) => observer.observe(event.data) });
  const decoder = new TextDecoder();
  let pending = '';
  let broken = false;
  startEventStream(res);
  try {
    for await (const chunk of answer.body) {
      exchange.markFirstByte();
      const text = decoder.decode(chunk, { stream: true });
      parser.feed(text);
      if (!options.dropUsageChunk) {
        await write(res, chunk);
        continue;
      }
      pending += text;
      const cut = lastEventBoundary(pending);
      if (cut < 0) continue;
      const complete = pending.slice(0, cut);
      pending = pending.slice(cut);
      const kept = withoutUsageChunk(complete);
      if (kept.length > 0) await write(res, kept);
    }
    if (pending.length > 0) await write(res, pending);
  } catch (error) {
    broken = await reportBrokenStream(exchange, answer, error);
  }
  if (!res.destroyed) res.end();
  return {
    reported: observer.reportedUsage(),
    reportedInput: observer.reportedInputTokens(),
    outputChars: observer.outputChars,
    broken,
  };
}

// CR, LF and CRLF line ends are all valid SSE.
const EVENT_SEPARATOR = /(?<=\r\n\r\n|\n\n|\r\r(?!\n))/;

function lastEventBoundary(text: string): number {
  const candidates = [text.lastIndexOf('\n\n') + 2, text.lastIndexOf('\r\r') + 2];
  const crlf = text.lastIndexOf('\r\n\r\n');
  if (crlf >= 0) candidates.push(crlf + 4);
  const best = Math.max(...candidates.filter((c) => c >= 2));
  return Number.isFinite(best) ? best : -1;
}

const USAGE_ONLY = /"choices"\s*:\s*\[\s*\]/;
const HAS_USAGE = /"usage"\s*:\s*\{/;

function withoutUsageChunk(events: string): string {
  if (!HAS_USAGE.test(events)) return events;
  return events
    .split(EVENT_SEPARATOR)
    .filter((event) => !(HAS_USAGE.test(event) && USAGE_ONLY.test(event)))
    .join('');
}

export async function relayTranslatedStream<E>(
  exchange: Exchange,
  answer: UpstreamAnswer,
  upstreamKind: Exclude<StreamKind, 'responses'>,
  translator: StreamTranslator<E>,
): Promise<StreamOutcome> {
  const { res } = exchange;
  const observer = new StreamObserver(upstreamKind);
  let out = '';
  const parser = createParser({
    onEvent: (event) => {
      const parsed = observer.observe(event.data);
      if (parsed !== undefined) out += translator.push(parsed as E);
    },
  });
  const decoder = new TextDecoder();
  let broken = false;
  startEventStream(res);
  try {
    for await (const chunk of answer.body) {
      exchange.markFirstByte();
      parser.feed(decoder.decode(chunk, { stream: true }));
      if (out.length > 0) {
        const text = out;
        out = '';
        await write(res, text);
      }
    }
    await write(res, translator.end());
  } catch (error) {
    broken = await reportBrokenStream(exchange, answer, error);
  }
  if (!res.destroyed) res.end();
  return {
    reported: translator.reportedUsage() ? translator.usage() : null,
    reportedInput: observer.reportedInputTokens(),
    outputChars: observer.outputChars,
    broken,
  };
}

/** Through the stream's events: an async iterator costs garbage and a promise per chunk on every JSON call. */
export function readAnswer(answer: UpstreamAnswer, limit = Number.POSITIVE_INFINITY): Promise<Buffer> {
  const body = answer.body;
  // Destroyed without an error (the connection cut): fail, as an async iterator would, rather than wait.
  const prematureClose = () =>
    Object.assign(new Error('the answer ended before its body was complete'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
  if (body.destroyed) return Promise.reject(body.errored ?? prematureClose());
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (error: unknown) => {
      body.off('data', onData);
      body.off('end', onEnd);
      body.off('error', onError);
      body.off('close', onClose);
      if (error) reject(error as Error);
      else resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        settle(null);
        answer.discard().catch(() => undefined);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => settle(null);
    const onError = (error: unknown) => settle(error);
    const onClose = () => settle(prematureClose());
    body.on('data', onData);
    body.once('end', onEnd);
    body.once('error', onError);
    body.once('close', onClose);
  });
}

/** With the provider's content type (JSON when it gave none). */
export function writeJson(res: ServerResponse, body: string | Buffer, contentType?: string): void {
  res.statusCode = 200;
  res.setHeader('content-type', contentType ?? 'application/json');
  res.setHeader('content-length', Buffer.byteLength(body));
  res.end(body);
}

/**
 * The provider's message is kept; 429 stays a retryable 429 (with its `retry-after`), 404, 400, 413 and
 * 422 stay as they are, and the rest (a refusal of the gateway's own credentials, 5xx) is 502.
 */
export async function upstreamFailure(answer: UpstreamAnswer): Promise<GatewayError> {
  const text = (await readAnswer(answer, UPSTREAM_ERROR_BODY_LIMIT)).toString('utf8');
  let message = text.slice(0, 500);
  let code: string | undefined;
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown; code?: unknown; type?: unknown } | string };
    const error = typeof body.error === 'string' ? { message: body.error } : body.error;
    if (typeof error?.message === 'string') message = error.message;
    if (typeof error?.code === 'string') code = error.code;
  } catch {
    // Not JSON: the text itself is the message.
  }
  const status = answer.status;
  const said = `the provider answered ${status}: ${message || 'no details'}`;
  if (status === 429) {
    const retryAfter = headerOf(answer, 'retry-after');
    return new GatewayError(
      'rate_limit',
      code ?? 'upstream_rate_limited',
      said,
      retryAfter ? { 'retry-after': retryAfter } : {},
    );
  }
  if (status === 404) return new GatewayError('not_found', code ?? 'upstream_not_found', said);
  if (status === 413) return new GatewayError('request_too_large', 'request_too_large', said);
  if (status === 400 || status === 422)
    return new GatewayError('invalid_request', code ?? 'upstream_invalid_request', said, {}, 400);
  if (status === 401 || status === 403) {
    return new GatewayError(
      'upstream',
      'upstream_auth_failed',
      `the provider refused the gateway's credentials (${status})`,
    );
  }
  return new GatewayError('upstream', 'upstream_error', said);
}
