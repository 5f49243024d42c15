import { type Redis } from 'ioredis';
import { checkWindow } from '../memory/memory-counters';
import { type CounterState, type Counters } from '../ports';
import { closeRedisClient, createRedisClient, keyspace, type RedisEndpoint } from './redis-connection';

// INCR and the window's expiry in one step: a crash between them must not leave a key that never expires.
const HIT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('TTL', KEYS[1])
if ttl < 0 then redis.call('EXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {count, ttl}
`;

/** Counters on Redis: one key per counter under `<prefix>counter:`, expiring with its window. */
export class RedisCounters implements Counters {
  private readonly redis: Redis;
  private readonly prefix: string;

  constructor(endpoint: RedisEndpoint) {
    this.prefix = `${keyspace(endpoint.keyPrefix)}counter:`;
    this.redis = createRedisClient(endpoint, 'counters');
    this.redis.defineCommand('fedCounterHit', { numberOfKeys: 1, lua: HIT });
  }

  async hit(key: string, windowSeconds: number): Promise<CounterState> {
    checkWindow(windowSeconds);
    const hit = (this.redis as unknown as { fedCounterHit(key: string, window: number): Promise<[number, number]> })
      .fedCounterHit;
    const [count, ttl] = await hit.call(this.redis, this.prefix + key, windowSeconds);
    return { count, resetInSeconds: ttl };
  }

  async peek(key: string): Promise<CounterState> {
    const results = await this.redis
      .multi()
      .get(this.prefix + key)
      .ttl(this.prefix + key)
      .exec();
    const count = Number(results?.[0]?.[1] ?? 0);
    const ttl = Number(results?.[1]?.[1] ?? -2);
    return count > 0 && ttl > 0 ? { count, resetInSeconds: ttl } : { count: 0, resetInSeconds: 0 };
  }

  async reset(key: string): Promise<void> {
    await this.redis.del(this.prefix + key);
  }

  async ping(): Promise<void> {
    await this.redis.ping();
  }

  close(): Promise<void> {
    return closeRedisClient(this.redis);
  }
}
