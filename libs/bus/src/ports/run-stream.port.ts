import { type TraceContext } from '@fed/contracts';

/** `offset` is opaque; pass it back to read what follows it. */
export interface StreamEntry {
  offset: string;
  data: string;
  /** On the stream's first entry only (see `RunStream.traceOf`). */
  trace?: TraceContext;
}

export interface StreamRead {
  entries: StreamEntry[];
  /** Ended, and every entry up to the end has been returned. */
  ended: boolean;
  /**
   * No such stream: never created, expired, or lost with the store. A reader holding an offset of it
   * knows the rest of it will never come.
   */
  absent?: boolean;
}

export interface WriteOptions {
  /** Refuses an absent stream (StreamLostError) rather than recreate it with its start missing. */
  existing?: boolean;
}

export interface ReadOptions {
  /** 0: return at once. */
  blockMs?: number;
  count?: number;
  /** Ends the wait early; the read resolves with what it has. */
  signal?: AbortSignal;
  /**
   * One reader following one stream, passed with each of its reads (never shared). A read where the same
   * follower's last read left off, with nothing appended since, waits without reading first: on Redis an
   * idle reader costs no round trip per wait.
   */
  follower?: object;
}

export const STREAM_START = '0';

/** Appends after `end` are refused; an ended stream is kept for `ttlSeconds`, then forgotten. */
export interface RunStream {
  /** `trace` is kept beside the first entry's data, never in it (readers relay `data` as is); ignored later. */
  append(streamId: string, data: string, trace?: TraceContext, options?: WriteOptions): Promise<string>;
  /** For a reader that starts after the first entry. */
  traceOf(streamId: string): Promise<TraceContext | undefined>;
  /** A missing stream is waited for when read from `STREAM_START`, and reported `absent` at once after an offset. */
  read(streamId: string, afterOffset: string, options?: ReadOptions): Promise<StreamRead>;
  /** The first end's expiry stands; ending an unknown stream leaves it ended and empty, unless `existing`. */
  end(streamId: string, options?: { ttlSeconds?: number } & WriteOptions): Promise<void>;
  state(streamId: string): Promise<'absent' | 'open' | 'ended'>;
  close(): Promise<void>;
}

export class StreamEndedError extends Error {
  constructor(readonly streamId: string) {
    super(`stream ${streamId} has ended`);
    this.name = 'StreamEndedError';
  }
}

/** Its store lost it, or it expired. */
export class StreamLostError extends Error {
  constructor(readonly streamId: string) {
    super(`stream ${streamId} is gone`);
    this.name = 'StreamLostError';
  }
}

const OFFSET = /^\d{1,16}-\d{1,16}$/;

export function isStreamOffset(value: string): boolean {
  return OFFSET.test(value);
}
