import { type RunJob } from '@fed/contracts';
import {
  type ConsumeOptions,
  type EnqueueOptions,
  type RunConsumer,
  type RunJobContext,
  type RunJobHandler,
  type RunQueue,
  type RunQueueStats,
} from '../ports';
import { assertRunId, resolveAttempts, resolveConcurrency, wireCopy } from '../internal/run-ids';
import { nonNegativeMs, positiveSeconds } from '../internal/validate-settings';
import { type RunQueueSettings, runQueueDefaults } from '../settings';

interface PendingRun {
  job: RunJob;
  attempts: number;
  /** An attempt cut short by closing its consumer does not count. */
  failures: number;
  retryTimer: NodeJS.Timeout | undefined;
  queuedAt: number;
}

export class MemoryRunQueue implements RunQueue {
  private readonly pending = new Map<string, PendingRun>();
  private readonly waiting: PendingRun[] = [];
  /** Oldest first. */
  private readonly finished = new Map<string, number>();
  private readonly consumers: MemoryRunConsumer[] = [];
  private nextConsumer = 0;
  private closed = false;
  private readonly backoffMs: number;
  private readonly dedupeWindowMs: number;

  constructor(settings: RunQueueSettings = {}) {
    this.backoffMs = nonNegativeMs(settings.backoffMs ?? runQueueDefaults.backoffMs, 'backoffMs');
    this.dedupeWindowMs =
      positiveSeconds(settings.dedupeWindowSeconds ?? runQueueDefaults.dedupeWindowSeconds, 'dedupeWindowSeconds') *
      1000;
  }

  async enqueue(job: RunJob, options?: EnqueueOptions): Promise<void> {
    assertRunId(job.runId);
    const attempts = resolveAttempts(options);
    this.assertOpen();
    this.forgetExpired();
    if (this.pending.has(job.runId) || this.finished.has(job.runId)) return;
    const run: PendingRun = { job: wireCopy(job), attempts, failures: 0, retryTimer: undefined, queuedAt: Date.now() };
    this.pending.set(job.runId, run);
    this.waiting.push(run);
    this.dispatch();
  }

  consume(handler: RunJobHandler, options: ConsumeOptions = {}): RunConsumer {
    const concurrency = resolveConcurrency(options.concurrency);
    this.assertOpen();
    const consumer = new MemoryRunConsumer(this, handler, concurrency);
    this.consumers.push(consumer);
    queueMicrotask(() => this.dispatch());
    return consumer;
  }

  async pendingCount(): Promise<number> {
    this.assertOpen();
    return this.pending.size;
  }

  async stats(): Promise<RunQueueStats> {
    this.assertOpen();
    let delayed = 0;
    for (const run of this.pending.values()) if (run.retryTimer) delayed++;
    const next = this.waiting[0];
    return {
      jobs: { waiting: this.waiting.length, active: this.pending.size - this.waiting.length - delayed, delayed },
      oldestWaitingSeconds: next ? Math.max(0, (Date.now() - next.queuedAt) / 1000) : 0,
      consumers: this.consumers.length,
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.consumers].map((consumer) => consumer.close()));
    for (const run of this.pending.values()) clearTimeout(run.retryTimer);
    this.pending.clear();
    this.waiting.length = 0;
    this.finished.clear();
  }

  dispatch(): void {
    while (this.waiting.length > 0 && !this.closed) {
      const consumer = this.takeConsumer();
      if (!consumer) return;
      consumer.start(this.waiting.shift() as PendingRun);
    }
  }

  succeeded(run: PendingRun): void {
    this.finish(run);
  }

  failed(run: PendingRun, interrupted: boolean): void {
    if (this.closed) return;
    if (interrupted) {
      // Its consumer is shutting down: back to the head of the line, attempt unused.
      this.waiting.unshift(run);
      return;
    }
    run.failures++;
    if (run.failures >= run.attempts) return this.finish(run);
    const delay = this.backoffMs * 2 ** (run.failures - 1);
    run.retryTimer = setTimeout(() => {
      run.retryTimer = undefined;
      this.waiting.push(run);
      this.dispatch();
    }, delay);
    // A pending retry must not keep the process alive.
    run.retryTimer.unref();
  }

  detach(consumer: MemoryRunConsumer): void {
    const index = this.consumers.indexOf(consumer);
    if (index >= 0) this.consumers.splice(index, 1);
  }

  private finish(run: PendingRun): void {
    if (this.closed) return;
    this.pending.delete(run.job.runId);
    this.finished.set(run.job.runId, Date.now() + this.dedupeWindowMs);
    this.forgetExpired();
  }

  private forgetExpired(): void {
    const now = Date.now();
    for (const [runId, until] of this.finished) {
      if (until > now && this.finished.size <= runQueueDefaults.dedupeMaxIds) break;
      this.finished.delete(runId);
    }
  }

  private takeConsumer(): MemoryRunConsumer | undefined {
    for (let i = 0; i < this.consumers.length; i++) {
      const consumer = this.consumers[(this.nextConsumer + i) % this.consumers.length];
      if (consumer.hasCapacity()) {
        this.nextConsumer = (this.nextConsumer + i + 1) % this.consumers.length;
        return consumer;
      }
    }
    return undefined;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('run queue is closed');
  }
}

class MemoryRunConsumer implements RunConsumer {
  private readonly running = new Set<Promise<void>>();
  private readonly stopping = new AbortController();
  private draining = false;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly queue: MemoryRunQueue,
    private readonly handler: RunJobHandler,
    private readonly concurrency: number,
  ) {}

  hasCapacity(): boolean {
    return !this.draining && !this.closing && this.running.size < this.concurrency;
  }

  start(run: PendingRun): void {
    const context: RunJobContext = {
      attempt: run.failures + 1,
      signal: this.stopping.signal,
      hold: () => 'held',
      holdsJob: () => Promise.resolve(true),
    };
    // On a later tick and with its own copy, as a Redis worker would be.
    const attempt = Promise.resolve()
      .then(() => this.handler(wireCopy(run.job), context))
      .then(
        () => this.queue.succeeded(run),
        () => this.queue.failed(run, this.stopping.signal.aborted),
      )
      .finally(() => {
        this.running.delete(attempt);
        this.queue.dispatch();
      });
    this.running.add(attempt);
  }

  async drain(): Promise<void> {
    this.draining = true;
    while (this.running.size > 0) await Promise.all(this.running);
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.queue.detach(this);
      this.stopping.abort(new Error('run consumer closed'));
      await Promise.all(this.running);
    })();
    return this.closing;
  }
}
