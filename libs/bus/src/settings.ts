// Shared by the Redis and in-process implementations, so both behave the same.

export interface RunQueueSettings {
  /** Each further retry waits twice as long (default 1000 ms). */
  backoffMs?: number;
  /** How long a finished run id is still refused by `enqueue` (default 3600 s; at most 10,000 ids). */
  dedupeWindowSeconds?: number;
}

export interface RunStreamSettings {
  /** After the last append (default 24 h), so abandoned runs cannot pile up. */
  maxLifetimeSeconds?: number;
  /** When `end` gives no ttl (default 3600 s). */
  endTtlSeconds?: number;
}

export const runQueueDefaults = { backoffMs: 1000, dedupeWindowSeconds: 3600, dedupeMaxIds: 10_000 } as const;
export const runStreamDefaults = { maxLifetimeSeconds: 24 * 3600, endTtlSeconds: 3600 } as const;

export interface EmailQueueSettings {
  /** The first included. */
  attempts: number;
  backoffMs: number;
}

export const emailQueueDefaults = {
  // A hanging SMTP server holds these, nothing else.
  concurrency: 4,
  closeGraceMs: 3000,
} as const;
