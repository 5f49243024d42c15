import { RedisSignals, type SignalPublisher, findSignalRelay } from '@fed/bus';
import { type AppConfig } from '@fed/config';
import { type SessionInvalidations, type UserRole, signalSessionInvalidations } from '@fed/identity';

/** Tells running services of a cached change (Redis, or a running platform's relay); false when no one heard. */
export async function tellRunningServices(
  config: AppConfig<'platformctl'>,
  send: (signals: SignalPublisher) => Promise<void>,
): Promise<boolean> {
  let told = false;
  if (config.redis.url) {
    const signals = new RedisSignals({ url: config.redis.url, keyPrefix: config.redis.keyPrefix });
    try {
      await send(signals);
      told = true;
    } finally {
      await signals.close();
    }
  }
  const platform = await findSignalRelay(config.dataDir);
  if (platform) {
    try {
      await send(platform);
      told = true;
    } catch (error) {
      // The change itself is stored: the platform learns of it later, as without a relay.
      process.stderr.write(
        `platformctl: the platform running on ${config.dataDir} (pid ${platform.pid}) could not be told at ${platform.url}: ${reason(error)}\n`,
      );
    }
  }
  return told;
}

// fetch says only "fetch failed"; the cause says why (ECONNREFUSED, a timeout).
function reason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.cause instanceof Error ? `${error.message} (${error.cause.message})` : error.message;
}

/** Running services learn at once that a user's sessions ended (else their tokens expire). */
export class AnnouncedInvalidations implements SessionInvalidations {
  told = false;

  constructor(private readonly config: AppConfig<'platformctl'>) {}

  async invalidate(userId: string, at: Date): Promise<void> {
    this.told = await tellRunningServices(this.config, (signals) =>
      signalSessionInvalidations(signals, this.config).invalidate(userId, at),
    );
  }

  async roleChanged(userId: string, role: UserRole, at: Date): Promise<void> {
    const told = await tellRunningServices(this.config, async (signals) => {
      await signalSessionInvalidations(signals, this.config).roleChanged?.(userId, role, at);
    });
    this.told &&= told;
  }
}

export const UNTOLD_INVALIDATION =
  '; no REDIS_URL: running services accept the access tokens already issued until they expire, at most ACCESS_TOKEN_TTL_SECONDS';
