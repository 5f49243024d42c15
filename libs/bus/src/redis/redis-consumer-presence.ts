import { type Redis } from 'ioredis';

export const PRESENCE_EVERY_MS = 5000;
export const PRESENCE_TTL_MS = 15_000;

// Scored by when presence ends, in Redis's own clock (TIME), so process clocks do not matter.
const NOW_MS = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/** KEYS[1] the set; ARGV consumer id, ttl ms. Drops the expired ones while at it. */
const PRESENT = `${NOW_MS}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`;

/** KEYS[1] the set. */
const COUNT = `${NOW_MS}
return redis.call('ZCOUNT', KEYS[1], '(' .. now, '+inf')`;

interface PresenceScripts {
  fedConsumerPresent(key: string, consumerId: string, ttlMs: number): Promise<number>;
  fedConsumerCount(key: string): Promise<number>;
}

/**
 * One cheap command per scrape, unlike `CLIENT LIST` (O(connections) and often denied); a crashed
 * consumer counts until its last report expires.
 */
export class RedisConsumerPresence {
  private readonly client: Redis & PresenceScripts;

  constructor(
    client: Redis,
    private readonly key: string,
  ) {
    client.defineCommand('fedConsumerPresent', { numberOfKeys: 1, lua: PRESENT });
    client.defineCommand('fedConsumerCount', { numberOfKeys: 1, lua: COUNT });
    this.client = client as Redis & PresenceScripts;
  }

  /** Failed reports are retried by the next one. */
  join(consumerId: string): { leave(): Promise<void> } {
    const report = () =>
      void this.client.fedConsumerPresent(this.key, consumerId, PRESENCE_TTL_MS).catch(() => undefined);
    report();
    const timer = setInterval(report, PRESENCE_EVERY_MS);
    timer.unref();
    return {
      leave: async () => {
        clearInterval(timer);
        await this.client.zrem(this.key, consumerId).catch(() => undefined);
      },
    };
  }

  count(): Promise<number> {
    return this.client.fedConsumerCount(this.key);
  }
}
