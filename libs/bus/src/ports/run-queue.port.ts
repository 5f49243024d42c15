import { type RunJob } from '@fed/contracts';

export interface EnqueueOptions {
  /** Attempts before the job is given up (default 3). */
  attempts?: number;
}

export interface ConsumeOptions {
  /** Jobs run at once by this consumer (default 1). */
  concurrency?: number;
}

/** Runs one job; a throw counts as a failed attempt and the job is retried with backoff. */
export type RunJobHandler = (job: RunJob, context: { attempt: number; signal: AbortSignal }) => Promise<void>;

export interface RunConsumer {
  /** Stops taking jobs and waits for the running ones to finish. */
  close(): Promise<void>;
}

/** Queue of agent turns. The job id is `runId`: enqueueing the same run twice queues it once. */
export interface RunQueue {
  enqueue(job: RunJob, options?: EnqueueOptions): Promise<void>;
  consume(handler: RunJobHandler, options?: ConsumeOptions): RunConsumer;
  /** Jobs not yet finished (waiting, delayed or active). */
  pendingCount(): Promise<number>;
  close(): Promise<void>;
}
