import { type EmailJob } from '@fed/contracts';

/** A rejection is retried, unless it is a PermanentDeliveryError. */
export type EmailJobHandler = (job: EmailJob, attempt: number) => Promise<void>;

/** A 5xx reply: trying again would get the same answer. */
export class PermanentDeliveryError extends Error {
  override readonly name = 'PermanentDeliveryError';
}

/** E-mails that outlive the call that queued them, retried with exponential backoff. */
export interface EmailQueue {
  readonly kind: 'redis' | 'in-process';
  enqueue(job: EmailJob): Promise<void>;
  /** Once per queue; `onGiveUp` hears of a job that will not be tried again. */
  consume(handler: EmailJobHandler, onGiveUp: (job: EmailJob, error: Error) => void): void;
  /** In-process only: 0 on Redis, which keeps jobs for another instance. */
  unsent(): number;
  close(): Promise<void>;
}
