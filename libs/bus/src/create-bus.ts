import { type Counters, type RunQueue, type RunStream, type Signals } from './ports';
import { within } from './internal/within';
import { MemoryCounters } from './memory/memory-counters';
import { MemoryRunQueue } from './memory/memory-run-queue';
import { MemoryRunStream } from './memory/memory-run-stream';
import { MemorySignals } from './memory/memory-signals';
import { RedisCounters } from './redis/redis-counters';
import { RedisRunQueue } from './redis/redis-run-queue';
import { RedisRunStream } from './redis/redis-run-stream';
import { RedisSignals } from './redis/redis-signals';
import { type RunQueueSettings, type RunStreamSettings } from './settings';

export interface Bus {
  runQueue: RunQueue;
  runStream: RunStream;
  signals: Signals;
  counters: Counters;
  kind: 'redis' | 'in-process';
  /** Rejects when Redis cannot be reached within ~2 s; resolves at once in-process. */
  ping(): Promise<void>;
  /** Closes the queue first (waiting for running jobs, which may still write to streams), then the rest. */
  close(): Promise<void>;
}

export interface CreateBusOptions {
  /** Absent: the in-process bus (all-in-one mode, one process only). */
  redisUrl?: string;
  /** Prepended to every Redis key and channel, e.g. `fed:` (ignored in-process). */
  keyPrefix: string;
  runQueue?: RunQueueSettings;
  runStream?: RunStreamSettings;
  connectTimeoutMs?: number;
  pingTimeoutMs?: number;
  /** Errors are retried; this is for logging. */
  onError?: (error: Error) => void;
}

const DEFAULT_PING_TIMEOUT_MS = 2000;

export function createBus(options: CreateBusOptions): Bus {
  return options.redisUrl ? createRedisBus({ ...options, redisUrl: options.redisUrl }) : createMemoryBus(options);
}

function createMemoryBus(options: CreateBusOptions): Bus {
  const runQueue = new MemoryRunQueue(options.runQueue);
  const runStream = new MemoryRunStream(options.runStream);
  const signals = new MemorySignals();
  const counters = new MemoryCounters();
  let closed = false;
  return {
    runQueue,
    runStream,
    signals,
    counters,
    kind: 'in-process',
    ping: async () => {
      if (closed) throw new Error('bus is closed');
    },
    close: async () => {
      closed = true;
      await runQueue.close();
      await Promise.all([runStream.close(), signals.close(), counters.close()]);
    },
  };
}

function createRedisBus(options: CreateBusOptions & { redisUrl: string }): Bus {
  const endpoint = {
    url: options.redisUrl,
    keyPrefix: options.keyPrefix,
    connectTimeoutMs: options.connectTimeoutMs,
    onError: options.onError,
  };
  const opened: { close(): Promise<void> }[] = [];
  let runQueue: RedisRunQueue, runStream: RedisRunStream, signals: RedisSignals, counters: RedisCounters;
  try {
    opened.push((runQueue = new RedisRunQueue({ ...endpoint, ...options.runQueue })));
    opened.push((runStream = new RedisRunStream({ ...endpoint, ...options.runStream })));
    opened.push((signals = new RedisSignals(endpoint)));
    opened.push((counters = new RedisCounters(endpoint)));
  } catch (error) {
    // A bad setting must not leave the connections opened so far behind.
    for (const part of opened) void part.close().catch(() => undefined);
    throw error;
  }
  const pingTimeoutMs = options.pingTimeoutMs ?? DEFAULT_PING_TIMEOUT_MS;
  let closing: Promise<void> | undefined;
  return {
    runQueue,
    runStream,
    signals,
    counters,
    kind: 'redis',
    ping: async () => {
      if (closing) throw new Error('bus is closed');
      const all = Promise.all([runQueue.ping(), runStream.ping(), signals.ping(), counters.ping()]);
      if (!(await within(all, pingTimeoutMs))) throw new Error(`Redis did not answer within ${pingTimeoutMs} ms`);
    },
    close: () =>
      (closing ??= (async () => {
        await runQueue.close();
        await Promise.all([runStream.close(), signals.close(), counters.close()]);
      })()),
  };
}
