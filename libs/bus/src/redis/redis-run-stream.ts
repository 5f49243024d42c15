import { setMaxListeners } from 'node:events';
import { type Redis } from 'ioredis';
import {
  type ReadOptions,
  type RunStream,
  STREAM_START,
  type StreamEntry,
  StreamEndedError,
  type StreamRead,
} from '../ports';
import { parseOffset, resolveReadOptions } from '../internal/stream-offsets';
import { Wakeup } from '../internal/wakeup';
import { monotonicNow, within } from '../internal/within';
import { positiveSeconds } from '../internal/validate-settings';
import { type RunStreamSettings, runStreamDefaults } from '../settings';
import { RedisChannelMux } from './redis-channel-mux';
import { closeRedisClient, createRedisClient, keyspace, type RedisEndpoint } from './redis-connection';
import { appendScript, endScript, readScript, STREAM_ENDED_REPLY } from './redis-run-stream.scripts';

export interface RedisRunStreamOptions extends RedisEndpoint, RunStreamSettings {
  /** How long a stream's nudge channel stays subscribed after its last reader left (default 5000 ms). */
  subscriptionLingerMs?: number;
}

type RawEntry = [offset: string, fields: string[]];

interface StreamCommands {
  fedRunStreamAppend(key: string, data: string, lifetimeMs: number, channel: string): Promise<string>;
  fedRunStreamEnd(key: string, ttlMs: number, channel: string): Promise<number>;
  fedRunStreamRead(key: string, start: string, count: number): Promise<[RawEntry[], number]>;
}

const NOTHING: StreamRead = { entries: [], ended: false };

/**
 * RunStream on Redis Streams. A blocking read does not hold a Redis connection: `append` publishes
 * a nudge on the stream's channel, and all waiting readers of this process share one subscriber
 * connection (see RedisChannelMux), waking up to re-read with XRANGE.
 */
export class RedisRunStream implements RunStream {
  private readonly commands: Redis & StreamCommands;
  private readonly subscriber: Redis;
  private readonly mux: RedisChannelMux;
  private readonly closing = new AbortController();
  private readonly prefix: string;
  private readonly maxLifetimeMs: number;
  private readonly endTtlSeconds: number;

  constructor(options: RedisRunStreamOptions) {
    // Every waiting read listens for close: thousands of listeners here are expected, not a leak.
    setMaxListeners(0, this.closing.signal);
    this.prefix = keyspace(options.keyPrefix);
    this.maxLifetimeMs = Math.ceil(
      positiveSeconds(options.maxLifetimeSeconds ?? runStreamDefaults.maxLifetimeSeconds, 'maxLifetimeSeconds') * 1000,
    );
    this.endTtlSeconds = positiveSeconds(options.endTtlSeconds ?? runStreamDefaults.endTtlSeconds, 'endTtlSeconds');
    this.commands = createRedisClient(options, 'stream') as Redis & StreamCommands;
    this.commands.defineCommand('fedRunStreamAppend', { numberOfKeys: 1, lua: appendScript });
    this.commands.defineCommand('fedRunStreamEnd', { numberOfKeys: 1, lua: endScript });
    this.commands.defineCommand('fedRunStreamRead', { numberOfKeys: 1, lua: readScript });
    this.subscriber = createRedisClient(options, 'stream-sub');
    this.mux = new RedisChannelMux(this.subscriber, options.subscriptionLingerMs ?? 5000, options.onError);
  }

  async append(streamId: string, data: string): Promise<string> {
    if (typeof data !== 'string') throw new TypeError('data must be a string');
    this.assertOpen();
    try {
      return await this.commands.fedRunStreamAppend(
        this.key(streamId),
        data,
        this.maxLifetimeMs,
        this.channel(streamId),
      );
    } catch (error) {
      if (error instanceof Error && error.message.startsWith(STREAM_ENDED_REPLY)) throw new StreamEndedError(streamId);
      throw error;
    }
  }

  async read(streamId: string, afterOffset: string, options?: ReadOptions): Promise<StreamRead> {
    parseOffset(afterOffset);
    const { blockMs, count, signal } = resolveReadOptions(options);
    this.assertOpen();
    const key = this.key(streamId);
    const start = afterOffset === STREAM_START ? '-' : `(${afterOffset}`;
    if (blockMs === 0 || signal?.aborted) return this.fetch(key, start, count);

    const channel = this.channel(streamId);
    const deadline = monotonicNow() + blockMs;
    const signals = [signal, this.closing.signal];
    // Not subscribed yet: try once without subscribing, the common case of a reader catching up.
    if (!this.mux.isLive(channel)) {
      const first = await this.fetch(key, start, count);
      if (first.entries.length > 0 || first.ended) return first;
    }
    const wakeup = new Wakeup();
    const nudge = () => wakeup.notify();
    const lease = this.mux.listen(channel, { message: nudge, resync: nudge });
    try {
      // Entries appended before the SUBSCRIBE took effect were nudged to no one: read again after it.
      if (!lease.live && !(await within(lease.ready, deadline - monotonicNow(), signals))) return NOTHING;
      wakeup.clear();
      do {
        const result = await this.fetch(key, start, count);
        if (result.entries.length > 0 || result.ended) return result;
      } while (await wakeup.next(deadline, signals));
      return NOTHING;
    } finally {
      void lease.release();
    }
  }

  async end(streamId: string, options: { ttlSeconds?: number } = {}): Promise<void> {
    const ttlSeconds = positiveSeconds(options.ttlSeconds ?? this.endTtlSeconds, 'ttlSeconds');
    this.assertOpen();
    await this.commands.fedRunStreamEnd(this.key(streamId), Math.ceil(ttlSeconds * 1000), this.channel(streamId));
  }

  async state(streamId: string): Promise<'absent' | 'open' | 'ended'> {
    this.assertOpen();
    const last = (await this.commands.xrevrange(this.key(streamId), '+', '-', 'COUNT', 1)) as RawEntry[];
    if (last.length === 0) return 'absent';
    return last[0][1][0] === 'e' ? 'ended' : 'open';
  }

  /** Round trip on both connections; rejects when either cannot reach Redis. */
  async ping(): Promise<void> {
    this.assertOpen();
    await Promise.all([this.commands.ping(), this.subscriber.ping()]);
  }

  async close(): Promise<void> {
    if (this.closing.signal.aborted) return;
    // Waiting reads see the abort and return; then the connections can go.
    this.closing.abort();
    this.mux.close();
    await Promise.all([closeRedisClient(this.subscriber), closeRedisClient(this.commands)]);
  }

  /** Fetches count + 1 so that an end marker right after a full page is still reported. */
  private async fetch(key: string, start: string, count: number): Promise<StreamRead> {
    const [raw, endedBefore] = await this.commands.fedRunStreamRead(key, start, count + 1);
    const entries: StreamEntry[] = [];
    for (const [offset, fields] of raw) {
      if (fields[0] === 'e') return { entries, ended: true };
      if (entries.length === count) return { entries, ended: false };
      entries.push({ offset, data: fields[1] ?? '' });
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
