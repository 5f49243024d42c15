import { type EmailJob } from '@fed/contracts';

/** Sends one job; a rejection is retried, unless it is a PermanentDeliveryError. */
export type EmailJobHandler = (job: EmailJob, attempt: number) => Promise<void>;

/** The server refused the message for good (a 5xx reply): trying again would get the same answer. */
export class PermanentDeliveryError extends Error {
  override readonly name = 'PermanentDeliveryError';
}

/**
 * E-mails to users that outlive the call that queued them, retried with exponential backoff
 * (EmailQueueSettings) and sent a few at a time per process.
 */
export interface EmailQueue {
  readonly kind: 'redis' | 'in-process';
  enqueue(job: EmailJob): Promise<void>;
  /** Starts taking jobs (once per queue); `onGiveUp` hears of a job that will not be tried again. */
  consume(handler: EmailJobHandler, onGiveUp: (job: EmailJob, error: Error) => void): void;
  /**
   * Jobs this process would lose by stopping now (waiting, delayed or running): in-process only, 0 on
   * Redis, which keeps them for another instance.
   */
  unsent(): number;
  /** Stops taking jobs and waits for the running ones (up to a grace period). */
  close(): Promise<void>;
}
