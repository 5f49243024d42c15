import { type TraceContext } from '@fed/contracts';

/** One entry of a run's chunk log. `offset` is opaque; pass it back to read what follows it. */
export interface StreamEntry {
  offset: string;
  data: string;
  /** On the stream's first entry only: the turn's trace context (see `RunStream.traceOf`). */
  trace?: TraceContext;
}

export interface StreamRead {
  entries: StreamEntry[];
  /** True when the stream was ended and every entry up to the end has been returned. */
  ended: boolean;
  /**
   * True when there is no such stream: never created, expired, or lost with the store (Redis restarted
   * empty). A reader that has seen the stream (it holds an offset of it, or it wrote its first entry)
   * knows the stream is gone and the rest of it will never come.
   */
  absent?: boolean;
}

export interface WriteOptions {
  /**
   * Only to a stream that exists: an absent one (lost with the store, or expired) is refused with
   * StreamLostError rather than created anew, with its start missing, for readers to take as whole.
   */
  existing?: boolean;
}

export interface ReadOptions {
  /** Wait up to this long for an entry when none is there yet (0: return at once). */
  blockMs?: number;
  /** Most entries returned by one read (default 100). */
  count?: number;
  /** Aborting ends the wait early; the read then resolves with what it has (usually nothing). */
  signal?: AbortSignal;
  /**
   * Any object that stands for one reader following one stream, passed with each of its reads (an SSE
   * relay's own). A read after the offset where the same follower's previous read left off, with nothing
   * appended since, then waits without reading the stream again first: on Redis, an idle stream's reader
   * costs no round trip per wait (a heartbeat), only when something is appended. Optional, never shared.
   */
  follower?: object;
}

/** The start of every stream: read from here to get everything. */
export const STREAM_START = '0';

/**
 * The ordered chunk log of one run (Redis Streams in production). Appends after `end` are refused;
 * an ended stream is kept for `ttlSeconds`, then forgotten (reads of an unknown stream return nothing).
 */
export interface RunStream {
  /**
   * `trace`: the turn's trace context, kept with the stream's first entry only (beside the data, never in
   * it: readers relay `data` as it is); ignored on any later entry. Stored once, not on every chunk.
   */
  append(streamId: string, data: string, trace?: TraceContext, options?: WriteOptions): Promise<string>;
  /** The trace context the stream's first entry was appended with, for a reader that starts after it. */
  traceOf(streamId: string): Promise<TraceContext | undefined>;
  /**
   * A stream that does not exist is waited for (up to `blockMs`) when read from `STREAM_START`, and
   * reported `absent` at once when read after an offset (the stream existed: it is gone).
   */
  read(streamId: string, afterOffset: string, options?: ReadOptions): Promise<StreamRead>;
  /**
   * Ending twice is harmless (the first end's expiry stands); ending an unknown stream leaves it ended and
   * empty, unless `existing` (then StreamLostError).
   */
  end(streamId: string, options?: { ttlSeconds?: number } & WriteOptions): Promise<void>;
  /** Whether a stream exists and whether it has ended. */
  state(streamId: string): Promise<'absent' | 'open' | 'ended'>;
  close(): Promise<void>;
}

export class StreamEndedError extends Error {
  constructor(readonly streamId: string) {
    super(`stream ${streamId} has ended`);
    this.name = 'StreamEndedError';
  }
}

/** A write with `existing` to a stream that is not there (any more): its store lost it, or it expired. */
export class StreamLostError extends Error {
  constructor(readonly streamId: string) {
    super(`stream ${streamId} is gone`);
    this.name = 'StreamLostError';
  }
}

const OFFSET = /^\d{1,16}-\d{1,16}$/;

/** Whether `value` is an offset a run stream hands out (`<ms>-<seq>` in both implementations). */
export function isStreamOffset(value: string): boolean {
  return OFFSET.test(value);
}
