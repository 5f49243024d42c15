import { type ReadOptions, STREAM_START, isStreamOffset } from '../ports';

// Offsets look like Redis stream ids (`<ms>-<seq>`) in both implementations, so a resume offset
// (SSE Last-Event-ID) means the same on either bus.

export const DEFAULT_READ_COUNT = 100;

export interface ParsedOffset {
  ms: number;
  seq: number;
}

export function parseOffset(offset: string): ParsedOffset {
  if (offset === STREAM_START) return { ms: 0, seq: 0 };
  if (!isStreamOffset(offset)) throw new RangeError(`invalid stream offset: ${JSON.stringify(offset.slice(0, 40))}`);
  const dash = offset.indexOf('-');
  return { ms: Number(offset.slice(0, dash)), seq: Number(offset.slice(dash + 1)) };
}

export function compareOffsets(a: ParsedOffset, b: ParsedOffset): number {
  return a.ms === b.ms ? a.seq - b.seq : a.ms - b.ms;
}

/** Offsets are times, so offsets of different runs interleave. */
export function compareStreamOffsets(a: string, b: string): number {
  return compareOffsets(parseOffset(a), parseOffset(b));
}

export interface ResolvedReadOptions {
  blockMs: number;
  count: number;
  signal: AbortSignal | undefined;
  follower: object | undefined;
}

export function resolveReadOptions(options: ReadOptions = {}): ResolvedReadOptions {
  const { blockMs = 0, count = DEFAULT_READ_COUNT, signal, follower } = options;
  if (!Number.isFinite(blockMs) || blockMs < 0) throw new RangeError('blockMs must be a finite number >= 0');
  if (!Number.isInteger(count) || count < 1) throw new RangeError('count must be an integer >= 1');
  return { blockMs, count, signal, follower };
}
