import { type Redis } from 'ioredis';
import { checkAmount, checkWindow } from '../memory/memory-counters';
import { type CounterState, type Counters } from '../ports';
import { closeRedisClient, createRedisClient, keyspace, type RedisEndpoint } from './redis-connection';

// INCR and the window's expiry in one step: a crash between them must not leave a key that never expires.
const HIT = `
local count = redis.call('INCRBY', KEYS[1], ARGV[2])
if count == tonumber(ARGV[2]) then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('TTL', KEYS[1])
if ttl < 0 then redis.call('EXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {count, ttl}
`;

// Counts and remaining seconds of several keys in one round trip (hot paths check two at once).
const PEEK = `
local out = {}
for _, key in ipairs(KEYS) do
  out[#out + 1] = tonumber(redis.call('GET', key)) or 0
  out[#out + 1] = redis.call('TTL', key)
end
return out
`;

/** Counters on Redis: one key per counter under `<prefix>counter:`, expiring with its window. */
export class RedisCounters implements Counters {
  private readonly redis: Redis;
  private readonly prefix: string;

  constructor(endpoint: RedisEndpoint) {
    this.prefix = `${keyspace(endpoint.keyPrefix)}counter:`;
    // Counters sit on hot paths (every token request checks the brute-force throttle): commands of the
    // same tick share one write to the socket instead of a syscall each.
    this.redis = createRedisClient(endpoint, 'counters', { enableAutoPipelining: true });
    this.redis.defineCommand('fedCounterHit', { numberOfKeys: 1, lua: HIT });
    this.redis.defineCommand('fedCounterPeek', { lua: PEEK });
  }

  hit(key: string, windowSeconds: number): Promise<CounterState> {
    return this.add(key, 1, windowSeconds);
  }

  async add(key: string, amount: number, windowSeconds: number): Promise<CounterState> {
    checkWindow(windowSeconds);
    checkAmount(amount);
    const hit = (
      this.redis as unknown as { fedCounterHit(key: string, window: number, amount: number): Promise<[number, number]> }
    ).fedCounterHit;
    const [count, ttl] = await hit.call(this.redis, this.prefix + key, windowSeconds, amount);
    return { count, resetInSeconds: ttl };
  }

  async peek(key: string): Promise<CounterState> {
    return (await this.peekMany([key]))[0] as CounterState;
  }

  async peekMany(keys: readonly string[]): Promise<CounterState[]> {
    if (keys.length === 0) return [];
    const peek = (this.redis as unknown as { fedCounterPeek(count: number, ...keys: string[]): Promise<number[]> })
      .fedCounterPeek;
    const flat = await peek.call(this.redis, keys.length, ...keys.map((key) => this.prefix + key));
    return keys.map((_, index) => {
      const count = Number(flat[index * 2] ?? 0);
      const ttl = Number(flat[index * 2 + 1] ?? -2);
      return count > 0 && ttl > 0 ? { count, resetInSeconds: ttl } : { count: 0, resetInSeconds: 0 };
    });
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
