import { RedisSignals, type Signals } from '@fed/bus';
import { type ServiceConfig } from '@fed/config';
import { type SessionInvalidations, signalSessionInvalidations } from '@fed/identity';

/**
 * Tells the running services of a change they keep in memory, over Redis. False without REDIS_URL
 * (all-in-one mode's in-process bus is out of a command's reach): they learn of it later by themselves.
 */
export async function tellRunningServices(
  config: ServiceConfig,
  send: (signals: Signals) => Promise<void>,
): Promise<boolean> {
  if (!config.redis.url) return false;
  const signals = new RedisSignals({ url: config.redis.url, keyPrefix: config.redis.keyPrefix });
  try {
    await send(signals);
    return true;
  } finally {
    await signals.close();
  }
}

/** Running services learn at once that a user's sessions ended (with REDIS_URL; else their tokens expire). */
export class AnnouncedInvalidations implements SessionInvalidations {
  told = false;

  constructor(private readonly config: ServiceConfig) {}

  async invalidate(userId: string, at: Date): Promise<void> {
    this.told = await tellRunningServices(this.config, (signals) =>
      signalSessionInvalidations(signals, this.config).invalidate(userId, at),
    );
  }
}

export const UNTOLD_INVALIDATION =
  '; no REDIS_URL: running services accept the access tokens already issued until they expire, at most ACCESS_TOKEN_TTL_SECONDS';
