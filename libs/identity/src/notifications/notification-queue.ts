import { type NotificationEvent } from './notification-templates';

/**
 * One e-mail to send, as queued (BullMQ job data: versioned, since a worker of another release may
 * take it). It names the user, not the address: the worker reads the current address and language.
 */
export interface NotificationJob {
  version: 1;
  userId: string;
  event: NotificationEvent;
  /** Account e-mails: the language of the page that asked for it (one of the 14 tags). */
  locale?: string;
  /** Account e-mails: the sign-in request the user came from, which the link's page leads back to. */
  interaction?: string;
}

/** Sends one job; a rejection is retried, unless it is a PermanentDeliveryError. */
export type NotificationHandler = (job: NotificationJob, attempt: number) => Promise<void>;

export interface RetryPolicy {
  /** Tries in all, the first included. */
  attempts: number;
  /** Before the first retry; each further retry waits twice as long. */
  backoffMs: number;
}

/** Jobs that outlive the admin call that queued them, retried with exponential backoff. */
export interface NotificationQueue {
  readonly kind: 'redis' | 'in-process';
  enqueue(job: NotificationJob): Promise<void>;
  /** Starts taking jobs (once per process); `onGiveUp` hears of a job that will not be tried again. */
  consume(handler: NotificationHandler, onGiveUp: (job: NotificationJob, error: Error) => void): void;
  /** Stops taking jobs and waits for the running ones (up to a grace period). */
  close(): Promise<void>;
}

/** Nest injection token of the queue. */
export const NOTIFICATION_QUEUE = Symbol.for('fed.identity.NotificationQueue');

/** Sends running at once per process: a hanging SMTP server holds these, nothing else. */
export const NOTIFICATION_CONCURRENCY = 4;
export const CLOSE_GRACE_MS = 3000;

/** Wait before attempt `attempt + 1` (attempt counts from 1), as BullMQ's exponential backoff computes it. */
export function retryDelayMs(policy: RetryPolicy, attempt: number): number {
  return policy.backoffMs * 2 ** (attempt - 1);
}
