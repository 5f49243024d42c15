import type { IncomingHttpHeaders } from 'node:http';

/** One request as the upstream received it. */
export interface RecordedRequest {
  method: string;
  /** The request target, query included: `/openai/deployments/gpt/chat/completions?api-version=2024-10-21`. */
  path: string;
  /** Node's header object: names lower-cased, repeated headers joined. */
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
  /** The body parsed as JSON; undefined when it is empty or not JSON. */
  json: unknown;
  /** `Date.now()` when the body had been read. */
  receivedAt: number;
  /** True once the client went away before the answer was complete. */
  aborted: boolean;
}

/**
 * Steps with a `path` are taken only by a request whose path (without its query), or whole target,
 * equals it; steps without one are taken by any request.
 */
interface StepBase {
  path?: string;
}

/** A complete JSON answer. */
export interface JsonStep extends StepBase {
  kind: 'json';
  /** Default 200. */
  status?: number;
  /** Sent over the defaults (`content-type: application/json`). */
  headers?: Record<string, string>;
  /** Always JSON-serialised, a string included. */
  body: unknown;
  /** Waited before the answer's first byte. */
  delayMs?: number;
}

/** An SSE event: objects are JSON-serialised, a string is sent as is (`'[DONE]'`). */
export interface SseEvent {
  data: unknown;
  event?: string;
}

/** A pause between two items. */
export interface SsePause {
  delayMs: number;
}

/** Bytes written verbatim, for odd framing (CRLF line ends, an event split across writes, comments). */
export interface SseRaw {
  raw: string;
}

/** Destroys the socket where it stands, so the client sees a stream cut mid-way. */
export interface SseHangUp {
  hangUp: true;
}

export type SseItem = SseEvent | SsePause | SseRaw | SseHangUp;

/** A streamed answer; it ends normally after the last item unless an item hung up. */
export interface SseStep extends StepBase {
  kind: 'sse';
  /** Default 200. */
  status?: number;
  /** Sent over the defaults (`content-type: text/event-stream`). */
  headers?: Record<string, string>;
  events: SseItem[];
}

/** An error answer, such as 429 with `retry-after`, 500 or 529. */
export interface StatusStep extends StepBase {
  kind: 'status';
  status: number;
  headers?: Record<string, string>;
  /**
   * A string is sent as is (`text/plain` unless `headers` say otherwise), anything else as JSON.
   * When absent, the provider's error envelope for the status: Anthropic's when the request carries
   * `anthropic-version`, OpenAI's otherwise.
   */
  body?: unknown;
  /** Waited before the answer's first byte. */
  delayMs?: number;
}

/** Destroys the socket without answering: a connection error before the first byte. */
export interface HangUpStep extends StepBase {
  kind: 'hangUp';
}

/** Never answers, until the client goes away or the upstream closes. */
export interface StallStep extends StepBase {
  kind: 'stall';
}

export type UpstreamStep = JsonStep | SseStep | StatusStep | HangUpStep | StallStep;
