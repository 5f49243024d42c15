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
   * and the job is handed out again (default 10 s). BullMQ renews the lock every eighth to quarter of it,
   * and looks for such jobs every quarter, so a dead consumer's job is taken again within about 1¼ of it.
   */
  stallMs?: number;
  /** Told when a running job's hold changes (for logs); never for the in-process queue, whose holds never do. */
  onHoldChange?(runId: string, hold: JobHold): void;
}

/**
 * How sure a consumer is that a running job is still its own. `held`: its lock was renewed recently
 * enough for writes to land before it could lapse. `unconfirmed`: no renewal confirmed for a while (a
 * long pause of the process, Redis slow or out of reach), though the lock may well still be valid:
 * writes wait. `lost`: the lock lapsed or was refused, another consumer may run the job: nothing more
 * is written. Only `unconfirmed` can change (to either), `lost` is final.
 */
export type JobHold = 'held' | 'unconfirmed' | 'lost';

/** The reason of a handler's `signal` when the job is no longer this consumer's (another may be running it). */
export class RunJobLostError extends Error {
  constructor(readonly runId: string) {
    super(`run ${runId}: this consumer no longer holds the job`);
    this.name = 'RunJobLostError';
  }
}

export interface RunJobContext {
  attempt: number;
  /**
   * Aborts when the consumer closes (reason: an Error), or when the job is no longer held by this
   * consumer (reason: `RunJobLostError`; Redis: its lock lapsed or renewing it was refused).
   */
  signal: AbortSignal;
  /** The job's hold now (always `held` in-process). */
  hold(): JobHold;
  /**
   * Resolves true while the job is held, false once it is lost; while its hold is unconfirmed, waits
   * until it is confirmed again or lost. A handler awaits it before each write another consumer's attempt
   * could duplicate, and writes nothing more once it resolved false.
   */
  holdsJob(): Promise<boolean>;
}

/**
 * Runs one job; a throw counts as a failed attempt and the job is retried with backoff. `signal` aborts
 * when the consumer closes (or the job is lost): a handler that then throws hands the job back to the
 * queue without using up an attempt (a lost job is left to whoever holds it now), one that returns has
 * completed it.
 */
export type RunJobHandler = (job: RunJob, context: RunJobContext) => Promise<void>;

export interface RunConsumer {
  /**
   * Stops taking jobs; the running ones go on (Redis: their locks still renewed) and keep their
   * signal. Resolves once none is running. `close` hands back whatever still runs, during or after it.
   */
  drain(): Promise<void>;
  /** Stops taking jobs, aborts the running ones' signals and waits for them to finish. */
  close(): Promise<void>;
}

/**
 * What the queue holds, for metrics. Each figure is read on its own: one that could not be read this time
 * (Redis: its command failed) is left out, and the others are still given.
 */
export interface RunQueueStats {
  /** Jobs waiting for a consumer, running on one, and waiting for their retry (backoff). */
  jobs?: { waiting: number; active: number; delayed: number };
  /** Age of the job next in line, since it was first queued (0 when none waits). */
  oldestWaitingSeconds?: number;
  /**
   * Consumers open on the queue (Redis: in every process sharing it, each counted while it reports itself
   * every few seconds; a crashed one for up to 15 s more), draining ones included.
   */
  consumers?: number;
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
  stats(): Promise<RunQueueStats>;
  close(): Promise<void>;
}
