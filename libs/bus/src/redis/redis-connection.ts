import { type RedisOptions as WorkerConnectionOptions } from 'bullmq';
import { Redis, type RedisOptions } from 'ioredis';
import { within } from '../internal/within';

/** Where and how the Redis implementations connect; each one owns the connections it opens. */
export interface RedisEndpoint {
  url: string;
  /** Prepended to every key and channel; a ':' is added when missing (e.g. `fed:`). */
  keyPrefix: string;
  /** Per connection attempt (default 2000 ms), so an unreachable host fails instead of hanging. */
  connectTimeoutMs?: number;
  /** Connection and background errors (Redis down, reconnects). Defaults to ignoring them. */
  onError?: (error: Error) => void;
}

export const DEFAULT_CONNECT_TIMEOUT_MS = 2000;

/** The normalised key prefix, always ending in ':' so `fed` and `fed:` mean the same. */
export function keyspace(keyPrefix: string): string {
  if (typeof keyPrefix !== 'string' || keyPrefix === '') throw new RangeError('keyPrefix must be a non-empty string');
  return keyPrefix.endsWith(':') ? keyPrefix : `${keyPrefix}:`;
}

/**
 * ioredis options shared by every connection we open. Commands issued while Redis is away wait
 * for a few reconnects (~300 ms when the port is closed) and then fail, instead of queueing forever.
 */
export function connectionOptions(endpoint: RedisEndpoint, role: string): RedisOptions {
  return {
    connectionName: `${keyspace(endpoint.keyPrefix)}bus-${role}`.replace(/\s/g, '_'),
    connectTimeout: endpoint.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    maxRetriesPerRequest: 3,
    retryStrategy: reconnectDelay,
    // disconnect() of a socket that already failed waits this long (ref'd) for a 'close' that never
    // comes; the 2 s default would keep a stopping process alive for nothing.
    disconnectTimeout: 200,
  };
}

/** A BullMQ worker's connection: its blocking fetch needs one of its own, with unlimited retries. */
export function workerConnectionOptions(endpoint: RedisEndpoint, role: string): WorkerConnectionOptions {
  const { connectionName, connectTimeout, disconnectTimeout } = connectionOptions(endpoint, role);
  return {
    url: endpoint.url,
    connectionName,
    connectTimeout,
    disconnectTimeout,
    retryStrategy: reconnectDelay,
    maxRetriesPerRequest: null,
  };
}

/** Reconnect after 50, 100, 150... ms, at most every 2 s, forever (Redis may come back). */
export function reconnectDelay(times: number): number {
  return Math.min(times * 50, 2000);
}

export function createRedisClient(
  endpoint: RedisEndpoint,
  role: string,
  extra: Pick<RedisOptions, 'enableAutoPipelining'> = {},
): Redis {
  const client = new Redis(endpoint.url, { ...connectionOptions(endpoint, role), ...extra });
  // Without a listener ioredis prints every reconnect failure to the console.
  client.on('error', (error: Error) => endpoint.onError?.(error));
  return client;
}

/** What closing needs of an ioredis client (BullMQ's wrapped clients too). */
export interface ClosableRedis {
  status: string;
  quit(): Promise<unknown>;
  disconnect(): void;
  connect(): Promise<unknown>;
  once(event: 'end', listener: () => void): unknown;
}

const CLOSE_TIMEOUT_MS = 3000;

/** QUIT when connected (lets replies in flight arrive), otherwise end the client without reconnecting. */
export async function closeRedisClient(client: ClosableRedis): Promise<void> {
  if (client.status === 'end') return;
  if (client.status === 'ready' && (await within(client.quit(), CLOSE_TIMEOUT_MS).catch(() => false))) return;
  await endRedisClient(client);
}

/**
 * Ends a client that is not (or no longer) usable, failing the commands still waiting for it.
 * ioredis quirk: disconnect() between two reconnect attempts cancels the next attempt but never ends
 * the client, so those commands would wait forever. One last attempt made while "manually closing"
 * ends it the normal way, whether it fails (refused, or connectTimeout) or connects.
 */
export async function endRedisClient(client: ClosableRedis): Promise<void> {
  if (client.status === 'end') return;
  const ended = new Promise<void>((resolve) => client.once('end', () => resolve()));
  const reconnecting = client.status === 'reconnecting';
  client.disconnect();
  if (reconnecting) {
    client.connect().then(
      () => client.disconnect(),
      () => undefined,
    );
  }
  await within(ended, CLOSE_TIMEOUT_MS);
}
