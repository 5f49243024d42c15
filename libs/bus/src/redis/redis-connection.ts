import { type RedisOptions as WorkerConnectionOptions } from 'bullmq';
import { Redis, type RedisOptions } from 'ioredis';
import { within } from '../internal/within';

export interface RedisEndpoint {
  url: string;
  /** A ':' is added when missing. */
  keyPrefix: string;
  /** So an unreachable host fails instead of hanging (default 2000 ms). */
  connectTimeoutMs?: number;
  onError?: (error: Error) => void;
}

export const DEFAULT_CONNECT_TIMEOUT_MS = 2000;

export function keyspace(keyPrefix: string): string {
  if (typeof keyPrefix !== 'string' || keyPrefix === '') throw new RangeError('keyPrefix must be a non-empty string');
  return keyPrefix.endsWith(':') ? keyPrefix : `${keyPrefix}:`;
}

/** Commands issued while Redis is away fail after a few reconnects instead of queueing forever. */
export function connectionOptions(endpoint: RedisEndpoint, role: string): RedisOptions {
  return {
    connectionName: `${keyspace(endpoint.keyPrefix)}bus-${role}`.replace(/\s/g, '_'),
    connectTimeout: endpoint.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    maxRetriesPerRequest: 3,
    retryStrategy: reconnectDelay,
    // disconnect() of a failed socket waits this long (ref'd) for a 'close' that never comes; the 2 s
    // default would keep a stopping process alive.
    disconnectTimeout: 200,
  };
}

/** BullMQ's blocking fetch needs a connection of its own, with unlimited retries. */
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

/** Forever: Redis may come back. */
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

export interface ClosableRedis {
  status: string;
  quit(): Promise<unknown>;
  disconnect(): void;
  connect(): Promise<unknown>;
  once(event: 'end', listener: () => void): unknown;
}

const CLOSE_TIMEOUT_MS = 3000;

/** QUIT when connected, so replies in flight arrive. */
export async function closeRedisClient(client: ClosableRedis): Promise<void> {
  if (client.status === 'end') return;
  if (client.status === 'ready' && (await within(client.quit(), CLOSE_TIMEOUT_MS).catch(() => false))) return;
  await endRedisClient(client);
}

/**
 * ioredis quirk: disconnect() between two reconnect attempts cancels the next one but never ends the
 * client, so waiting commands would hang. One last attempt while "manually closing" ends it normally.
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
