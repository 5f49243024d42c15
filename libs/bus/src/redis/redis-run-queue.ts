import { type RunJob } from '@fed/contracts';
import { type Job, type Processor, Queue, WaitingError, Worker } from 'bullmq';
import { type Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import {
  type ConsumeOptions,
  type EnqueueOptions,
  type JobHold,
  type RunConsumer,
  type RunJobHandler,
  RunJobLostError,
  type RunQueue,
  type RunQueueStats,
} from '../ports';
import { assertRunId, resolveAttempts, resolveConcurrency } from '../internal/run-ids';
import { within } from '../internal/within';
import { nonNegativeMs, positiveSeconds } from '../internal/validate-settings';
import { type RunQueueSettings, runQueueDefaults } from '../settings';
import {
  type ClosableRedis,
  closeRedisClient,
  createRedisClient,
  endRedisClient,
  keyspace,
  type RedisEndpoint,
  workerConnectionOptions,
} from './redis-connection';
import { RedisConsumerPresence } from './redis-consumer-presence';
import { RunJobHolds } from './run-job-holds';

export interface RedisRunQueueOptions extends RedisEndpoint, RunQueueSettings {
  queueName?: string;
}

const DEFAULT_STALL_MS = 10_000;

/** Finished jobs are kept for the dedupe window, which is what refuses a second enqueue of a finished run. */
export class RedisRunQueue implements RunQueue {
  private readonly client: Redis;
  private readonly queue: Queue<RunJob>;
  private readonly consumers = new Set<RedisRunConsumer>();
  private readonly presence: RedisConsumerPresence;
  private readonly queueName: string;
  private readonly bullPrefix: string;
  private readonly backoffMs: number;
  private readonly keepFinished: { age: number; count: number };
  private closing: Promise<void> | undefined;

  constructor(private readonly options: RedisRunQueueOptions) {
    this.queueName = options.queueName ?? 'runs';
    // BullMQ puts its own ':' after the prefix.
    this.bullPrefix = keyspace(options.keyPrefix).slice(0, -1);
    this.backoffMs = nonNegativeMs(options.backoffMs ?? runQueueDefaults.backoffMs, 'backoffMs');
    const window = positiveSeconds(
      options.dedupeWindowSeconds ?? runQueueDefaults.dedupeWindowSeconds,
      'dedupeWindowSeconds',
    );
    this.keepFinished = { age: Math.ceil(window), count: runQueueDefaults.dedupeMaxIds };
    // Our own client (BullMQ leaves a given client open), so ping and close stay ours.
    this.client = createRedisClient(options, 'queue');
    this.queue = new Queue<RunJob>(this.queueName, { connection: this.client, prefix: this.bullPrefix });
    this.queue.on('error', (error: Error) => options.onError?.(error));
    // Not under BullMQ's `<prefix>runs:` keys, where a job id could name the same key.
    this.presence = new RedisConsumerPresence(
      this.client,
      `${keyspace(options.keyPrefix)}run-queue-consumers:${this.queueName}`,
    );
  }

  async enqueue(job: RunJob, options?: EnqueueOptions): Promise<void> {
    assertRunId(job.runId);
    const attempts = resolveAttempts(options);
    this.assertOpen();
    // BullMQ ignores the add of a job id it still holds (pending, or finished and kept).
    await this.queue.add('run', job, {
      jobId: job.runId,
      attempts,
      backoff: { type: 'exponential', delay: this.backoffMs },
      removeOnComplete: this.keepFinished,
      removeOnFail: this.keepFinished,
    });
  }

  consume(handler: RunJobHandler, options: ConsumeOptions = {}): RunConsumer {
    const concurrency = resolveConcurrency(options.concurrency);
    const stallMs = options.stallMs ?? DEFAULT_STALL_MS;
    if (!Number.isFinite(stallMs) || stallMs < 1000) throw new RangeError('stallMs must be at least 1000');
    this.assertOpen();
    const consumer = new RedisRunConsumer(
      (processor) =>
        new Worker<RunJob>(this.queueName, processor, {
          connection: workerConnectionOptions(this.options, 'worker'),
          prefix: this.bullPrefix,
          concurrency,
          lockDuration: stallMs,
          // Renewed every eighth to quarter of the lock, so it outlives a pause or slow Redis of most of it
          // (writes wait once less than half may be left: RunJobHolds).
          lockRenewTime: Math.floor(stallMs / 4),
          stalledInterval: Math.floor(stallMs / 4),
        }),
      handler,
      { stallMs, onHoldChange: options.onHoldChange },
      (error) => this.options.onError?.(error),
      this.presence.join(randomUUID()),
      () => this.consumers.delete(consumer),
    );
    this.consumers.add(consumer);
    return consumer;
  }

  async pendingCount(): Promise<number> {
    this.assertOpen();
    return this.queue.getJobCountByTypes('waiting', 'delayed', 'prioritized', 'active');
  }

  async stats(): Promise<RunQueueStats> {
    this.assertOpen();
    const [counts, head, consumers] = await Promise.allSettled([
      this.queue.getJobCounts('waiting', 'prioritized', 'active', 'delayed'),
      // Ascending: the head of the line.
      this.queue.getJobs(['wait'], 0, 0, true),
      this.presence.count(),
    ]);
    const stats: RunQueueStats = {};
    if (counts.status === 'fulfilled') {
      const { waiting = 0, prioritized = 0, active = 0, delayed = 0 } = counts.value;
      stats.jobs = { waiting: waiting + prioritized, active, delayed };
    }
    if (head.status === 'fulfilled') {
      const [next] = head.value;
      stats.oldestWaitingSeconds = next ? Math.max(0, (Date.now() - next.timestamp) / 1000) : 0;
    }
    if (consumers.status === 'fulfilled') stats.consumers = consumers.value;
    return stats;
  }

  async ping(): Promise<void> {
    this.assertOpen();
    await this.client.ping();
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      // Consumers first: running jobs may need the queue until they finish.
      await Promise.all([...this.consumers].map((consumer) => consumer.close()));
      await this.queue.close();
      await closeRedisClient(this.client);
    })();
    return this.closing;
  }

  private assertOpen(): void {
    if (this.closing) throw new Error('run queue is closed');
  }
}

const CLOSE_GRACE_MS = 3000;

interface RunningJob {
  controller: AbortController;
  done: Promise<unknown>;
}

interface ConsumerSettings {
  stallMs: number;
  onHoldChange?: ConsumeOptions['onHoldChange'];
}

class RedisRunConsumer implements RunConsumer {
  private readonly running = new Map<string, RunningJob>();
  private readonly holds: RunJobHolds;
  private readonly worker: Worker<RunJob>;
  private clients: ClosableRedis[] = [];
  private draining = false;
  private stopping = false;
  private closing: Promise<void> | undefined;
  private readonly idleWaiters: (() => void)[] = [];

  constructor(
    createWorker: (processor: Processor<RunJob, void>) => Worker<RunJob>,
    private readonly handler: RunJobHandler,
    private readonly settings: ConsumerSettings,
    private readonly onError: (error: Error) => void,
    private readonly presence: { leave(): Promise<void> },
    private readonly onClosed: () => void,
  ) {
    this.holds = new RunJobHolds(settings.stallMs, (jobId, hold) => this.holdChanged(jobId, hold));
    // Three parameters, so BullMQ hands over its per-job cancellation signal.
    this.worker = createWorker((job, token, signal) => this.process(job, token, signal));
    this.worker.on('error', onError);
    this.worker.on('locksRenewed', ({ jobIds }) => this.holds.renewed(jobIds));
    this.worker.on('lockRenewalFailed', (jobIds) => this.holds.refused(jobIds));
    const backend = this.worker.getBackend();
    this.worker
      .waitUntilReady()
      .then(() => Promise.all([backend.client, backend.blockingClient]))
      .then(
        (clients) => (this.clients = clients.filter((c) => c !== undefined) as unknown as ClosableRedis[]),
        () => undefined,
      );
  }

  async drain(): Promise<void> {
    if (!this.draining) {
      this.draining = true;
      // Not waiting for active jobs here: they are ours to wait for, and close may come first.
      await this.worker.pause(true).catch((error: unknown) => this.onError(asError(error)));
    }
    while (this.running.size > 0) {
      await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    }
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.stopping = true;
      for (const { controller } of this.running.values()) controller.abort(new Error('run consumer closed'));
      await Promise.all([...this.running.values()].map((running) => running.done));
      await this.presence.leave();
      await this.closeWorker();
      this.onClosed();
    })();
    return this.closing;
  }

  private holdChanged(jobId: string, hold: JobHold): void {
    if (hold === 'lost') this.running.get(jobId)?.controller.abort(new RunJobLostError(jobId));
    try {
      this.settings.onHoldChange?.(jobId, hold);
    } catch (error) {
      this.onError(asError(error));
    }
  }

  /**
   * BullMQ's graceful close waits for each connection's 'end', which ioredis never emits for one waiting to
   * reconnect: with Redis away it would hang. So graceful only while connected, else end them first.
   */
  private async closeWorker(): Promise<void> {
    const healthy = this.clients.length > 0 && this.clients.every((c) => c.status === 'ready');
    if (!healthy) await Promise.all(this.clients.map(endRedisClient));
    const closed = this.worker.close(!healthy);
    if (await within(closed, CLOSE_GRACE_MS).catch(() => true)) return;
    this.onError(new Error('Redis unreachable while closing a run consumer; its connections were dropped'));
    await Promise.all(this.clients.map(endRedisClient));
    await within(closed, CLOSE_GRACE_MS).catch(() => true);
  }

  private async process(job: Job<RunJob>, token: string | undefined, bullSignal: AbortSignal | undefined) {
    const jobId = job.id as string;
    if ((this.draining || this.stopping) && token) {
      // Fetched just as the consumer began to drain: back to waiting at once, attempt unused.
      await job.moveToWait(token);
      throw new WaitingError();
    }
    const controller = new AbortController();
    const cancel = () => controller.abort(bullSignal?.reason);
    bullSignal?.addEventListener('abort', cancel, { once: true });
    const running: RunningJob = { controller, done: Promise.resolve() };
    this.running.set(jobId, running);
    const hold = this.holds.track(jobId);
    const handled = Promise.resolve().then(() =>
      this.handler(job.data, {
        attempt: job.attemptsMade + 1,
        signal: controller.signal,
        hold: hold.current,
        holdsJob: hold.confirmed,
      }),
    );
    running.done = handled.catch(() => undefined);
    try {
      const failure = await handled.then(
        () => undefined,
        (error: unknown) => ({ error }),
      );
      if (hold.current() === 'lost') await this.giveUp(job, token);
      if (!failure) return;
      if (this.stopping && token) {
        // Cut short by our own shutdown: back to waiting, attempt unused.
        await job.moveToWait(token);
        throw new WaitingError();
      }
      throw asError(failure.error);
    } finally {
      hold.release();
      this.running.delete(jobId);
      bullSignal?.removeEventListener('abort', cancel);
      if (this.running.size === 0) for (const wake of this.idleWaiters.splice(0)) wake();
    }
  }

  /**
   * Whoever holds a lost job now decides its outcome. If the lock is still ours (lost by our own reckoning),
   * it goes back to waiting at once; the move checks the token, so it is harmless when another consumer has it.
   */
  private async giveUp(job: Job<RunJob>, token: string | undefined): Promise<never> {
    if (token) await within(job.moveToWait(token), this.settings.stallMs).catch(() => false);
    throw new WaitingError();
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
