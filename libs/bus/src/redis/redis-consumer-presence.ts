import { type Redis } from 'ioredis';

/** How often an open consumer says it is there, and for how long each time counts. */
export const PRESENCE_EVERY_MS = 5000;
export const PRESENCE_TTL_MS = 15_000;

// A sorted set of consumer ids scored by when their presence ends, in Redis's own clock (TIME), so the
// clocks of the processes sharing the queue do not matter. Each script is one atomic step.
const NOW_MS = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/** KEYS[1] the set; ARGV consumer id, ttl ms. Drops the expired ones while at it. */
const PRESENT = `${NOW_MS}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`;

/** KEYS[1] the set. Counts the consumers whose presence has not ended. */
const COUNT = `${NOW_MS}
return redis.call('ZCOUNT', KEYS[1], '(' .. now, '+inf')`;

interface PresenceScripts {
  fedConsumerPresent(key: string, consumerId: string, ttlMs: number): Promise<number>;
  fedConsumerCount(key: string): Promise<number>;
}

/**
 * Which consumers are open on a queue, for `run_queue_consumers`: each reports itself every few seconds,
 * and leaves when it closes. One cheap command per scrape (no `CLIENT LIST`, which is O(connections) and
 * often denied to application users); a crashed consumer still counts until its last report expires.
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

  /** Reports `consumerId` now and every few seconds until the returned `leave` (failed reports are retried then). */
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
