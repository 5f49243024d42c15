import { type TraceContext } from '@fed/contracts';
import { setMaxListeners } from 'node:events';
import { type Redis } from 'ioredis';
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
import { parseOffset, resolveReadOptions } from '../internal/stream-offsets';
import { Wakeup } from '../internal/wakeup';
import { monotonicNow, within } from '../internal/within';
import { positiveSeconds } from '../internal/validate-settings';
import { type RunStreamSettings, runStreamDefaults } from '../settings';
import { type ChannelListener, type ChannelMark, RedisChannelMux } from './redis-channel-mux';
import { closeRedisClient, createRedisClient, keyspace, type RedisEndpoint } from './redis-connection';
import { appendScript, endScript, readScript, STREAM_ENDED_REPLY, STREAM_LOST_REPLY } from './redis-run-stream.scripts';

export interface RedisRunStreamOptions extends RedisEndpoint, RunStreamSettings {
  /** Channel subscription kept after the last reader left (default 5000 ms). */
  subscriptionLingerMs?: number;
  quietReadMaxMs?: number;
}

type RawEntry = [offset: string, fields: string[]];

interface StreamCommands {
  fedRunStreamAppend(
    key: string,
    data: string,
    lifetimeMs: number,
    channel: string,
    traceparent: string,
    tracestate: string,
    existing: string,
  ): Promise<string>;
  fedRunStreamEnd(key: string, ttlMs: number, channel: string, existing: string): Promise<number>;
  fedRunStreamRead(key: string, start: string, count: number): Promise<[RawEntry[], number, number]>;
}

const NOTHING: StreamRead = { entries: [], ended: false };

/** A stream lost without a word on its channel (evicted, flushed by hand) is seen only by a read. */
const QUIET_READ_MAX_MS = 60_000;

interface FollowerPosition {
  streamId: string;
  after: string;
  mark: ChannelMark;
  readAt: number;
}

/** A read after an offset that is not there: the stream is gone, nothing will come. */
function settled(read: StreamRead, afterOffset: string): boolean {
  return read.entries.length > 0 || read.ended || (read.absent === true && afterOffset !== STREAM_START);
}

function entryOf(offset: string, fields: string[]): StreamEntry {
  const entry: StreamEntry = { offset, data: fields[1] ?? '' };
  if (fields[2] === 't' && fields[3]) {
    entry.trace =
      fields[4] === 's' && fields[5] ? { traceparent: fields[3], tracestate: fields[5] } : { traceparent: fields[3] };
  }
  return entry;
}

/** A reconnect may have lost a nudge, so it wakes the reader too. */
class ChannelWakeup extends Wakeup implements ChannelListener {
  message(): void {
    this.notify();
  }

  resync(): void {
    this.notify();
  }
}

/**
 * A blocking read holds no Redis connection: `append` publishes a nudge, and waiting readers share one
 * subscriber (RedisChannelMux).
 */
export class RedisRunStream implements RunStream {
  private readonly commands: Redis & StreamCommands;
  private readonly subscriber: Redis;
  private readonly mux: RedisChannelMux;
  private readonly closing = new AbortController();
  private readonly prefix: string;
  private readonly maxLifetimeMs: number;
  private readonly endTtlSeconds: number;
  private readonly followers = new WeakMap<object, FollowerPosition>();
  private readonly quietReadMaxMs: number;

  constructor(options: RedisRunStreamOptions) {
    // One listener per waiting read: many are expected, not a leak.
    setMaxListeners(0, this.closing.signal);
    this.prefix = keyspace(options.keyPrefix);
    this.maxLifetimeMs = Math.ceil(
      positiveSeconds(options.maxLifetimeSeconds ?? runStreamDefaults.maxLifetimeSeconds, 'maxLifetimeSeconds') * 1000,
    );
    this.quietReadMaxMs = options.quietReadMaxMs ?? QUIET_READ_MAX_MS;
    this.endTtlSeconds = positiveSeconds(options.endTtlSeconds ?? runStreamDefaults.endTtlSeconds, 'endTtlSeconds');
    this.commands = createRedisClient(options, 'stream') as Redis & StreamCommands;
    this.commands.defineCommand('fedRunStreamAppend', { numberOfKeys: 1, lua: appendScript });
    this.commands.defineCommand('fedRunStreamEnd', { numberOfKeys: 1, lua: endScript });
    this.commands.defineCommand('fedRunStreamRead', { numberOfKeys: 1, lua: readScript });
    this.subscriber = createRedisClient(options, 'stream-sub');
    this.mux = new RedisChannelMux(this.subscriber, options.subscriptionLingerMs ?? 5000, options.onError);
  }

  async append(streamId: string, data: string, trace?: TraceContext, options: WriteOptions = {}): Promise<string> {
    if (typeof data !== 'string') throw new TypeError('data must be a string');
    this.assertOpen();
    try {
      return await this.commands.fedRunStreamAppend(
        this.key(streamId),
        data,
        this.maxLifetimeMs,
        this.channel(streamId),
        trace?.traceparent ?? '',
        trace?.tracestate ?? '',
        options.existing ? '1' : '',
      );
    } catch (error) {
      throw refusalOf(error, streamId);
    }
  }

  async read(streamId: string, afterOffset: string, options?: ReadOptions): Promise<StreamRead> {
    parseOffset(afterOffset);
    const { blockMs, count, signal, follower } = resolveReadOptions(options);
    this.assertOpen();
    const key = this.key(streamId);
    const start = afterOffset === STREAM_START ? '-' : `(${afterOffset}`;
    if (blockMs === 0 || signal?.aborted) return this.fetch(key, start, count);

    const channel = this.channel(streamId);
    const deadline = monotonicNow() + blockMs;
    const signals = [signal, this.closing.signal];
    // Nothing published since the follower's last read: wait for a nudge before reading again.
    const position = follower ? this.followers.get(follower) : undefined;
    const quiet =
      position !== undefined &&
      position.streamId === streamId &&
      position.after === afterOffset &&
      monotonicNow() - position.readAt < this.quietReadMaxMs &&
      this.mux.unchanged(position.mark);
    // Not subscribed yet: try once without subscribing, the common case of a reader catching up.
    if (!quiet && !this.mux.isLive(channel)) {
      const first = await this.fetch(key, start, count);
      if (settled(first, afterOffset)) return first;
    }
    const wakeup = new ChannelWakeup();
    const lease = this.mux.listen(channel, wakeup);
    try {
      // Entries appended before the SUBSCRIBE took effect were nudged to no one: read again after it.
      if (!lease.live && !(await within(lease.ready, deadline - monotonicNow(), signals))) return NOTHING;
      wakeup.clear();
      // Checked again now that the lease listens: a nudge in between changed the mark.
      if (quiet && this.mux.unchanged(position.mark) && !(await wakeup.next(deadline, signals))) return NOTHING;
      let result: StreamRead;
      do {
        // Taken before the read: a nudge for anything the read may miss comes after it.
        const mark = this.mux.mark(channel);
        result = await this.fetch(key, start, count);
        if (follower) this.follow(follower, streamId, afterOffset, result, count, mark);
        if (settled(result, afterOffset)) return result;
      } while (await wakeup.next(deadline, signals));
      return result;
    } finally {
      void lease.release();
    }
  }

  /** Only when it read the stream to its present end. */
  private follow(
    follower: object,
    streamId: string,
    after: string,
    read: StreamRead,
    count: number,
    mark: ChannelMark | undefined,
  ): void {
    if (!mark || read.ended || read.absent || read.entries.length >= count) {
      this.followers.delete(follower);
      return;
    }
    this.followers.set(follower, {
      streamId,
      after: read.entries.at(-1)?.offset ?? after,
      mark,
      readAt: monotonicNow(),
    });
  }

  async end(streamId: string, options: { ttlSeconds?: number } & WriteOptions = {}): Promise<void> {
    const ttlSeconds = positiveSeconds(options.ttlSeconds ?? this.endTtlSeconds, 'ttlSeconds');
    this.assertOpen();
    try {
      await this.commands.fedRunStreamEnd(
        this.key(streamId),
        Math.ceil(ttlSeconds * 1000),
        this.channel(streamId),
        options.existing ? '1' : '',
      );
    } catch (error) {
      throw refusalOf(error, streamId);
    }
  }

  async state(streamId: string): Promise<'absent' | 'open' | 'ended'> {
    this.assertOpen();
    const last = (await this.commands.xrevrange(this.key(streamId), '+', '-', 'COUNT', 1)) as RawEntry[];
    if (last.length === 0) return 'absent';
    return last[0][1][0] === 'e' ? 'ended' : 'open';
  }

  async traceOf(streamId: string): Promise<TraceContext | undefined> {
    this.assertOpen();
    const [first] = (await this.commands.xrange(this.key(streamId), '-', '+', 'COUNT', 1)) as RawEntry[];
    return first && first[1][0] === 'd' ? entryOf(first[0], first[1]).trace : undefined;
  }

  async ping(): Promise<void> {
    this.assertOpen();
    await Promise.all([this.commands.ping(), this.subscriber.ping()]);
  }

  async close(): Promise<void> {
    if (this.closing.signal.aborted) return;
    this.closing.abort();
    this.mux.close();
    await Promise.all([closeRedisClient(this.subscriber), closeRedisClient(this.commands)]);
  }

  /** count + 1, so an end marker right after a full page is still reported. */
  private async fetch(key: string, start: string, count: number): Promise<StreamRead> {
    const [raw, endedBefore, absent] = await this.commands.fedRunStreamRead(key, start, count + 1);
    if (absent === 1) return { entries: [], ended: false, absent: true };
    const entries: StreamEntry[] = [];
    for (const [offset, fields] of raw) {
      if (fields[0] === 'e') return { entries, ended: true };
      if (entries.length === count) return { entries, ended: false };
      entries.push(entryOf(offset, fields));
    }
    return { entries, ended: endedBefore === 1 };
  }

  private key(streamId: string): string {
    return `${this.prefix}run-stream:${streamId}`;
  }

  private channel(streamId: string): string {
    return `${this.prefix}run-stream-nudge:${streamId}`;
  }

  private assertOpen(): void {
    if (this.closing.signal.aborted) throw new Error('run stream is closed');
  }
}

function refusalOf(error: unknown, streamId: string): unknown {
  if (!(error instanceof Error)) return error;
  if (error.message.startsWith(STREAM_ENDED_REPLY)) return new StreamEndedError(streamId);
  if (error.message.startsWith(STREAM_LOST_REPLY)) return new StreamLostError(streamId);
  return error;
}
