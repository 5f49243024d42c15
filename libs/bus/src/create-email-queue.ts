import { MemoryEmailQueue } from './memory/memory-email-queue';
import { type EmailQueue } from './ports';
import { RedisEmailQueue } from './redis/redis-email-queue';
import { type EmailQueueSettings } from './settings';

export interface CreateEmailQueueOptions extends EmailQueueSettings {
  /** Absent: the in-process queue (all-in-one mode, one process only). */
  redisUrl?: string;
  /** The bus's key prefix, e.g. `fed:` (ignored in-process). */
  keyPrefix: string;
  /** Per Redis connection attempt (default 2000 ms). */
  connectTimeoutMs?: number;
  /** Redis connection and background errors; they are retried, so this is for logging. */
  onError?: (error: Error) => void;
}

/**
 * The e-mail queue on the bus's Redis when there is one, else in this process; the same retry rule
 * either way. Built apart from createBus: only the services that send e-mail open it.
 */
export function createEmailQueue(options: CreateEmailQueueOptions): EmailQueue {
  const settings = { attempts: options.attempts, backoffMs: options.backoffMs };
  if (!options.redisUrl) return new MemoryEmailQueue(settings);
  return new RedisEmailQueue({
    ...settings,
    url: options.redisUrl,
    keyPrefix: options.keyPrefix,
    connectTimeoutMs: options.connectTimeoutMs,
    onError: options.onError,
  });
}
