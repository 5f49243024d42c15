import { type Redis } from 'ioredis';
import { checkAmount, checkLimit, checkWindow } from '../memory/memory-counters';
import { type CounterState, type Counters, type TakeResult } from '../ports';
import { closeRedisClient, createRedisClient, keyspace, type RedisEndpoint } from './redis-connection';

// One script per operation: atomic across instances, one round trip.

// A crash between INCR and the expiry must not leave a key that never expires.
const HIT = `
local count = redis.call('INCRBY', KEYS[1], ARGV[2])
if count == tonumber(ARGV[2]) then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('TTL', KEYS[1])
if ttl < 0 then redis.call('EXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {count, ttl}
`;

// Read and count in one step: concurrent takes cannot all see room for one more.
const TAKE = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
local ttl = redis.call('TTL', KEYS[1])
if count >= tonumber(ARGV[1]) then return {0, count, math.max(ttl, 0)} end
count = redis.call('INCR', KEYS[1])
if ttl < 0 then redis.call('EXPIRE', KEYS[1], ARGV[2]); ttl = tonumber(ARGV[2]) end
return {1, count, ttl}
`;

const RELEASE = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count <= 1 then redis.call('DEL', KEYS[1]) else redis.call('DECR', KEYS[1]) end
return 0
`;

// In milliseconds: a hold must not end early because TTL rounds.
const EXTEND = `
local ms = tonumber(ARGV[1]) * 1000
local pttl = redis.call('PTTL', KEYS[1])
if pttl == -2 then
  redis.call('SET', KEYS[1], 1, 'PX', ms)
  pttl = ms
elseif pttl < ms then
  redis.call('PEXPIRE', KEYS[1], ms)
  pttl = ms
end
return {tonumber(redis.call('GET', KEYS[1])), pttl}
`;

// Several keys in one round trip (hot paths check two at once).
const PEEK = `
local out = {}
for _, key in ipairs(KEYS) do
  out[#out + 1] = tonumber(redis.call('GET', key)) or 0
  out[#out + 1] = redis.call('TTL', key)
end
return out
`;

interface CounterScripts {
  fedCounterHit(key: string, windowSeconds: number, amount: number): Promise<[number, number]>;
  fedCounterTake(key: string, limit: number, windowSeconds: number): Promise<[number, number, number]>;
  fedCounterRelease(key: string): Promise<number>;
  fedCounterExtend(key: string, seconds: number): Promise<[number, number]>;
  fedCounterPeek(keyCount: number, ...keys: string[]): Promise<number[]>;
}

export class RedisCounters implements Counters {
  private readonly redis: Redis;
  private readonly scripts: CounterScripts;
  private readonly prefix: string;

  constructor(endpoint: RedisEndpoint) {
    this.prefix = `${keyspace(endpoint.keyPrefix)}counter:`;
    // Hot path (every token request checks the brute-force throttle): one socket write per tick.
    this.redis = createRedisClient(endpoint, 'counters', { enableAutoPipelining: true });
    this.redis.defineCommand('fedCounterHit', { numberOfKeys: 1, lua: HIT });
    this.redis.defineCommand('fedCounterTake', { numberOfKeys: 1, lua: TAKE });
    this.redis.defineCommand('fedCounterRelease', { numberOfKeys: 1, lua: RELEASE });
    this.redis.defineCommand('fedCounterExtend', { numberOfKeys: 1, lua: EXTEND });
    this.redis.defineCommand('fedCounterPeek', { lua: PEEK });
    this.scripts = this.redis as unknown as CounterScripts;
  }

  hit(key: string, windowSeconds: number): Promise<CounterState> {
    return this.add(key, 1, windowSeconds);
  }

  async add(key: string, amount: number, windowSeconds: number): Promise<CounterState> {
    checkWindow(windowSeconds);
    checkAmount(amount);
    const [count, ttl] = await this.scripts.fedCounterHit(this.prefix + key, windowSeconds, amount);
    return { count, resetInSeconds: ttl };
  }

  async take(key: string, limit: number, windowSeconds: number): Promise<TakeResult> {
    checkLimit(limit);
    checkWindow(windowSeconds);
    const [taken, count, ttl] = await this.scripts.fedCounterTake(this.prefix + key, limit, windowSeconds);
    return { taken: taken === 1, count, resetInSeconds: ttl };
  }

  async release(key: string): Promise<void> {
    await this.scripts.fedCounterRelease(this.prefix + key);
  }

  async extend(key: string, seconds: number): Promise<CounterState> {
    checkWindow(seconds);
    const [count, pttl] = await this.scripts.fedCounterExtend(this.prefix + key, seconds);
    return { count, resetInSeconds: Math.ceil(pttl / 1000) };
  }

  async peek(key: string): Promise<CounterState> {
    return (await this.peekMany([key]))[0] as CounterState;
  }

  async peekMany(keys: readonly string[]): Promise<CounterState[]> {
    if (keys.length === 0) return [];
    const flat = await this.scripts.fedCounterPeek(keys.length, ...keys.map((key) => this.prefix + key));
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
