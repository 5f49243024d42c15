import { type RunJob } from '@fed/contracts';

export interface EnqueueOptions {
  /** Attempts before the job is given up (default 3). */
  attempts?: number;
}

export interface ConsumeOptions {
  /** Jobs run at once by this consumer (default 1). */
  concurrency?: number;
  /**
   * Redis only: a consumer that has not renewed a running job's lock for this long is taken to be gone,
   * and the job is handed out again (default 30 s; BullMQ's lock duration and stalled-check interval).
   */
  stallMs?: number;
}

/**
 * Runs one job; a throw counts as a failed attempt and the job is retried with backoff. `signal` aborts
 * when the consumer closes (or the job is cancelled): a handler that then throws hands the job back to
 * the queue without using up an attempt, one that returns has completed it.
 */
export type RunJobHandler = (job: RunJob, context: { attempt: number; signal: AbortSignal }) => Promise<void>;

export interface RunConsumer {
  /** Stops taking jobs, aborts the running ones' signals and waits for them to finish. */
  close(): Promise<void>;
}

/**
 * Queue of agent turns, delivered at least once. The job id is `runId`: enqueueing the same run twice
 * queues it once, also for a while after it finished (the dedupe window).
 */
export interface RunQueue {
  enqueue(job: RunJob, options?: EnqueueOptions): Promise<void>;
  consume(handler: RunJobHandler, options?: ConsumeOptions): RunConsumer;
  /** Jobs not yet finished (waiting, delayed or active). */
  pendingCount(): Promise<number>;
  close(): Promise<void>;
}
