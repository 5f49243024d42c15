import { type RunJob } from '@fed/contracts';

export interface EnqueueOptions {
  attempts?: number;
}

export interface ConsumeOptions {
  concurrency?: number;
  /**
   * Redis only: a job whose lock was not renewed for this long is handed out again (default 10 s). BullMQ
   * renews every eighth to quarter of it and checks every quarter, so a dead consumer's job returns within ~1¼.
   */
  stallMs?: number;
  /** For logs; the in-process queue's holds never change. */
  onHoldChange?(runId: string, hold: JobHold): void;
}

/**
 * `held`: renewed recently enough for writes to land before the lock could lapse. `unconfirmed`: no
 * renewal confirmed for a while; writes wait. `lost` (final): another consumer may run the job.
 */
export type JobHold = 'held' | 'unconfirmed' | 'lost';

export class RunJobLostError extends Error {
  constructor(readonly runId: string) {
    super(`run ${runId}: this consumer no longer holds the job`);
    this.name = 'RunJobLostError';
  }
}

export interface RunJobContext {
  attempt: number;
  /** Aborts on consumer close (an Error) or when the job is lost (`RunJobLostError`). */
  signal: AbortSignal;
  hold(): JobHold;
  /** Awaited before each write another attempt could duplicate; false once the job is lost. */
  holdsJob(): Promise<boolean>;
}

/**
 * A throw is a failed attempt, retried with backoff, except after `signal` aborted: then the job goes
 * back to the queue without using up an attempt.
 */
export type RunJobHandler = (job: RunJob, context: RunJobContext) => Promise<void>;

export interface RunConsumer {
  /** Stops taking jobs; running ones go on with their locks renewed. `close` hands back whatever still runs. */
  drain(): Promise<void>;
  close(): Promise<void>;
}

/** Each figure is read on its own: one that could not be read is left out. */
export interface RunQueueStats {
  jobs?: { waiting: number; active: number; delayed: number };
  /** 0 when none waits. */
  oldestWaitingSeconds?: number;
  /** Redis: every process's, a crashed one counted up to 15 s more. */
  consumers?: number;
}

/** At-least-once. The job id is `runId`, so a run is queued once, also for the dedupe window after it finished. */
export interface RunQueue {
  enqueue(job: RunJob, options?: EnqueueOptions): Promise<void>;
  consume(handler: RunJobHandler, options?: ConsumeOptions): RunConsumer;
  pendingCount(): Promise<number>;
  stats(): Promise<RunQueueStats>;
  close(): Promise<void>;
}
