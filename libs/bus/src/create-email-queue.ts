import { MemoryEmailQueue } from './memory/memory-email-queue';
import { type EmailQueue } from './ports';
import { RedisEmailQueue } from './redis/redis-email-queue';
import { type EmailQueueSettings } from './settings';

export interface CreateEmailQueueOptions extends EmailQueueSettings {
  /** Absent: the in-process queue (all-in-one mode, one process only). */
  redisUrl?: string;
  keyPrefix: string;
  connectTimeoutMs?: number;
  /** Errors are retried; this is for logging. */
  onError?: (error: Error) => void;
}

/** Separate from createBus: only the services that send e-mail open it. */
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
