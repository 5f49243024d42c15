/** One entry of a run's chunk log. `offset` is opaque; pass it back to read what follows it. */
export interface StreamEntry {
  offset: string;
  data: string;
}

export interface StreamRead {
  entries: StreamEntry[];
  /** True when the stream was ended and every entry up to the end has been returned. */
  ended: boolean;
}

export interface ReadOptions {
  /** Wait up to this long for an entry when none is there yet (0: return at once). */
  blockMs?: number;
  /** Most entries returned by one read (default 100). */
  count?: number;
  /** Aborting ends the wait early; the read then resolves with what it has (usually nothing). */
  signal?: AbortSignal;
}

/** The start of every stream: read from here to get everything. */
export const STREAM_START = '0';

/**
 * The ordered chunk log of one run (Redis Streams in production). Appends after `end` are refused;
 * an ended stream is kept for `ttlSeconds`, then forgotten (reads of an unknown stream return nothing).
 */
export interface RunStream {
  append(streamId: string, data: string): Promise<string>;
  read(streamId: string, afterOffset: string, options?: ReadOptions): Promise<StreamRead>;
  /** Ending twice is harmless (the first end's expiry stands); ending an unknown stream leaves it ended and empty. */
  end(streamId: string, options?: { ttlSeconds?: number }): Promise<void>;
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

const OFFSET = /^\d{1,16}-\d{1,16}$/;

/** Whether `value` is an offset a run stream hands out (`<ms>-<seq>` in both implementations). */
export function isStreamOffset(value: string): boolean {
  return OFFSET.test(value);
}
