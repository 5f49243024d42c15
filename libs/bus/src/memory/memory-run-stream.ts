import { type TraceContext } from '@fed/contracts';
import { setMaxListeners } from 'node:events';
import {
  type ReadOptions,
  type RunStream,
  STREAM_START,
  type StreamEntry,
  StreamEndedError,
  StreamLostError,
  type StreamRead,
  type WriteOptions,
} from '../ports';
import { compareOffsets, type ParsedOffset, parseOffset, resolveReadOptions } from '../internal/stream-offsets';
import { Wakeup } from '../internal/wakeup';
import { monotonicNow } from '../internal/within';
import { positiveSeconds } from '../internal/validate-settings';
import { type RunStreamSettings, runStreamDefaults } from '../settings';

const MAX_TIMER_MS = 2_147_483_647;

interface StoredEntry extends StreamEntry {
  parsed: ParsedOffset;
}

interface MemoryStream {
  entries: StoredEntry[];
  ended: boolean;
  last: ParsedOffset;
  expiresAt: number;
  timer: NodeJS.Timeout | undefined;
}

export class MemoryRunStream implements RunStream {
  private readonly streams = new Map<string, MemoryStream>();
  // A reader may wait on a stream that does not exist yet.
  private readonly waiters = new Map<string, Set<Wakeup>>();
  private readonly closing = new AbortController();
  private readonly maxLifetimeMs: number;
  private readonly endTtlSeconds: number;

  constructor(settings: RunStreamSettings = {}) {
    // One listener per waiting read: many are expected, not a leak.
    setMaxListeners(0, this.closing.signal);
    this.maxLifetimeMs =
      positiveSeconds(settings.maxLifetimeSeconds ?? runStreamDefaults.maxLifetimeSeconds, 'maxLifetimeSeconds') * 1000;
    this.endTtlSeconds = positiveSeconds(settings.endTtlSeconds ?? runStreamDefaults.endTtlSeconds, 'endTtlSeconds');
  }

  async append(streamId: string, data: string, trace?: TraceContext, options: WriteOptions = {}): Promise<string> {
    this.assertOpen();
    let stream = this.streams.get(streamId);
    if (stream?.ended) throw new StreamEndedError(streamId);
    if (!stream && options.existing) throw new StreamLostError(streamId);
    if (!stream) {
      stream = { entries: [], ended: false, last: { ms: 0, seq: 0 }, expiresAt: 0, timer: undefined };
      this.streams.set(streamId, stream);
    }
    const parsed = this.nextOffset(stream);
    const offset = `${parsed.ms}-${parsed.seq}`;
    const first = stream.entries.length === 0;
    stream.entries.push(first && trace ? { offset, data, trace: { ...trace }, parsed } : { offset, data, parsed });
    stream.last = parsed;
    this.expireIn(streamId, stream, this.maxLifetimeMs, false);
    this.notify(streamId);
    return offset;
  }

  async read(streamId: string, afterOffset: string, options?: ReadOptions): Promise<StreamRead> {
    const after = parseOffset(afterOffset);
    const { blockMs, count, signal } = resolveReadOptions(options);
    this.assertOpen();
    // A read after an offset that is not there: the stream is gone, nothing will come.
    const settled = (read: StreamRead) =>
      read.entries.length > 0 || read.ended || (read.absent === true && afterOffset !== STREAM_START);
    const first = this.fetch(streamId, after, count);
    if (settled(first) || blockMs === 0) return first;

    const deadline = monotonicNow() + blockMs;
    const wakeup = new Wakeup();
    let waiting = this.waiters.get(streamId);
    if (!waiting) this.waiters.set(streamId, (waiting = new Set()));
    waiting.add(wakeup);
    try {
      while (await wakeup.next(deadline, [signal, this.closing.signal])) {
        const result = this.fetch(streamId, after, count);
        if (settled(result)) return result;
      }
      return this.streams.has(streamId) ? { entries: [], ended: false } : { entries: [], ended: false, absent: true };
    } finally {
      waiting.delete(wakeup);
      if (waiting.size === 0 && this.waiters.get(streamId) === waiting) this.waiters.delete(streamId);
    }
  }

  async end(streamId: string, options: { ttlSeconds?: number } & WriteOptions = {}): Promise<void> {
    const ttlSeconds = positiveSeconds(options.ttlSeconds ?? this.endTtlSeconds, 'ttlSeconds');
    this.assertOpen();
    let stream = this.streams.get(streamId);
    // The first end's expiry stands, as in Redis.
    if (stream?.ended) return;
    if (!stream && options.existing) throw new StreamLostError(streamId);
    if (!stream) {
      stream = { entries: [], ended: false, last: { ms: 0, seq: 0 }, expiresAt: 0, timer: undefined };
      this.streams.set(streamId, stream);
    }
    stream.ended = true;
    this.expireIn(streamId, stream, ttlSeconds * 1000, true);
    this.notify(streamId);
  }

  async state(streamId: string): Promise<'absent' | 'open' | 'ended'> {
    this.assertOpen();
    const stream = this.streams.get(streamId);
    return !stream ? 'absent' : stream.ended ? 'ended' : 'open';
  }

  async traceOf(streamId: string): Promise<TraceContext | undefined> {
    this.assertOpen();
    const trace = this.streams.get(streamId)?.entries[0]?.trace;
    return trace ? { ...trace } : undefined;
  }

  async close(): Promise<void> {
    if (this.closing.signal.aborted) return;
    this.closing.abort();
    for (const stream of this.streams.values()) clearTimeout(stream.timer);
    this.streams.clear();
  }

  private fetch(streamId: string, after: ParsedOffset, count: number): StreamRead {
    const stream = this.streams.get(streamId);
    if (!stream) return { entries: [], ended: false, absent: true };
    const start = this.firstAfter(stream.entries, after);
    const page = stream.entries.slice(start, start + count);
    const reachedEnd = start + page.length === stream.entries.length;
    return {
      entries: page.map(({ offset, data, trace }) =>
        trace ? { offset, data, trace: { ...trace } } : { offset, data },
      ),
      ended: stream.ended && reachedEnd,
    };
  }

  private firstAfter(entries: readonly StoredEntry[], after: ParsedOffset): number {
    let low = 0;
    let high = entries.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (compareOffsets(entries[mid].parsed, after) <= 0) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  // As Redis XADD '*': wall-clock ms plus a sequence, never going backwards when the clock does.
  private nextOffset(stream: MemoryStream): ParsedOffset {
    const now = Date.now();
    return now > stream.last.ms ? { ms: now, seq: 0 } : { ms: stream.last.ms, seq: stream.last.seq + 1 };
  }

  /** Appends only push the expiry later, so the armed timer re-arms when it fires early instead of per append. */
  private expireIn(streamId: string, stream: MemoryStream, ms: number, rearm: boolean): void {
    stream.expiresAt = Date.now() + ms;
    if (rearm) {
      clearTimeout(stream.timer);
      stream.timer = undefined;
    }
    if (!stream.timer) this.arm(streamId, stream, ms);
  }

  private arm(streamId: string, stream: MemoryStream, ms: number): void {
    // setTimeout overflows past ~24.8 days; a capped timer re-arms for the rest.
    stream.timer = setTimeout(
      () => {
        stream.timer = undefined;
        const left = stream.expiresAt - Date.now();
        if (left > 0) this.arm(streamId, stream, left);
        else if (this.streams.get(streamId) === stream) this.streams.delete(streamId);
      },
      Math.min(ms, MAX_TIMER_MS),
    );
    stream.timer.unref();
  }

  private notify(streamId: string): void {
    const waiting = this.waiters.get(streamId);
    if (waiting) for (const wakeup of waiting) wakeup.notify();
  }

  private assertOpen(): void {
    if (this.closing.signal.aborted) throw new Error('run stream is closed');
  }
}
