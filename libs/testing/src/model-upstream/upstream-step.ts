import type { IncomingHttpHeaders } from 'node:http';

export interface RecordedRequest {
  method: string;
  /** Query included: `/openai/deployments/gpt/chat/completions?api-version=2024-10-21`. */
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
  /** Undefined when empty or not JSON. */
  json: unknown;
  /** When the body had been read. */
  receivedAt: number;
  aborted: boolean;
  /** A streamed step's events (data and raw items): when each was written, in order (ms since the epoch). */
  eventsWrittenAt?: number[];
}

/** A step with a `path` is taken only by a request whose path (without query), or whole target, equals it. */
interface StepBase {
  path?: string;
}

export interface JsonStep extends StepBase {
  kind: 'json';
  status?: number;
  /** Over the defaults. */
  headers?: Record<string, string>;
  /** Always JSON-serialised, a string included. */
  body: unknown;
  /** Before the answer's first byte. */
  delayMs?: number;
}

/** Objects are JSON-serialised, a string is sent as is (`'[DONE]'`). */
export interface SseEvent {
  data: unknown;
  event?: string;
}

export interface SsePause {
  delayMs: number;
}

/** For odd framing: CRLF line ends, an event split across writes, comments. */
export interface SseRaw {
  raw: string;
}

/** The client sees a stream cut mid-way. */
export interface SseHangUp {
  hangUp: true;
}

export type SseItem = SseEvent | SsePause | SseRaw | SseHangUp;

export interface SseStep extends StepBase {
  kind: 'sse';
  status?: number;
  /** Over the defaults. */
  headers?: Record<string, string>;
  events: SseItem[];
  /**
   * Writes the events (data and raw items) at this rate, counted from the stream's start so that late timers
   * do not slow it: the nth is due n / eventsPerSecond seconds in, plus the pauses before it. Absent: at once.
   */
  eventsPerSecond?: number;
}

export interface StatusStep extends StepBase {
  kind: 'status';
  status: number;
  headers?: Record<string, string>;
  /** A string is sent as `text/plain`; absent: the provider's error envelope for the status. */
  body?: unknown;
  /** Before the answer's first byte. */
  delayMs?: number;
}

/** A connection error before the first byte. */
export interface HangUpStep extends StepBase {
  kind: 'hangUp';
}

/** Until the client goes away or the upstream closes. */
export interface StallStep extends StepBase {
  kind: 'stall';
}

export type UpstreamStep = JsonStep | SseStep | StatusStep | HangUpStep | StallStep;
