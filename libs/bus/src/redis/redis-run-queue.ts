import { type RunJob } from '@fed/contracts';
import { type Job, type Processor, Queue, type RedisOptions, WaitingError, Worker } from 'bullmq';
import { type Redis } from 'ioredis';
import {
  type ConsumeOptions,
  type EnqueueOptions,
  type RunConsumer,
  type RunJobHandler,
  type RunQueue,
} from '../ports';
import { assertRunId, resolveAttempts, resolveConcurrency } from '../internal/run-ids';
import { within } from '../internal/within';
import { nonNegativeMs, positiveSeconds } from '../internal/validate-settings';
import { type RunQueueSettings, runQueueDefaults } from '../settings';
import {
  type ClosableRedis,
  closeRedisClient,
  connectionOptions,
  createRedisClient,
  endRedisClient,
  keyspace,
  reconnectDelay,
  type RedisEndpoint,
} from './redis-connection';

export interface RedisRunQueueOptions extends RedisEndpoint, RunQueueSettings {
  /** BullMQ queue name under the key prefix (default `runs`). */
  queueName?: string;
}

/**
 * RunQueue on BullMQ. The job id is the run id; finished jobs are kept for the dedupe window (and
 * at most 10,000 of each kind), which is what refuses a second enqueue of a finished run.
 * BullMQ's stalled-job check stays on: a job whose worker died is handed out again.
 */
export class RedisRunQueue implements RunQueue {
  private readonly client: Redis;
  private readonly queue: Queue<RunJob>;
  private readonly consumers = new Set<RedisRunConsumer>();
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
    // Our own client (BullMQ leaves a client it was given open), so ping and close stay ours.
    this.client = createRedisClient(options, 'queue');
    this.queue = new Queue<RunJob>(this.queueName, { connection: this.client, prefix: this.bullPrefix });
    this.queue.on('error', (error: Error) => options.onError?.(error));
  }

  async enqueue(job: RunJob, options?: EnqueueOptions): Promise<void> {
    assertRunId(job.runId);
    const attempts = resolveAttempts(options);
    this.assertOpen();
    // A job id already in the queue (pending, or finished and still kept) makes BullMQ ignore the add.
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
    this.assertOpen();
    const consumer = new RedisRunConsumer(
      (processor) =>
        new Worker<RunJob>(this.queueName, processor, {
          // BullMQ opens and owns a worker's two connections; its blocking fetch needs unlimited retries.
          connection: this.workerConnection(),
          prefix: this.bullPrefix,
          concurrency,
          ...(options.stallMs === undefined
            ? {}
            : { lockDuration: options.stallMs, stalledInterval: Math.max(1000, Math.floor(options.stallMs / 2)) }),
        }),
      handler,
      (error) => this.options.onError?.(error),
      () => this.consumers.delete(consumer),
    );
    this.consumers.add(consumer);
    return consumer;
  }

  private workerConnection(): RedisOptions {
    const { connectionName, connectTimeout, disconnectTimeout } = connectionOptions(this.options, 'worker');
    return {
      url: this.options.url,
      connectionName,
      connectTimeout,
      disconnectTimeout,
      retryStrategy: reconnectDelay,
      maxRetriesPerRequest: null,
    };
  }

  async pendingCount(): Promise<number> {
    this.assertOpen();
    return this.queue.getJobCountByTypes('waiting', 'delayed', 'prioritized', 'active');
  }

  async ping(): Promise<void> {
    this.assertOpen();
    await this.client.ping();
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      // Consumers first: jobs still running may need the queue until they finish.
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

class RedisRunConsumer implements RunConsumer {
  /** Running handlers: aborted on close (or when BullMQ cancels the job, e.g. its lock was lost). */
  private readonly running = new Map<AbortController, Promise<unknown>>();
  private readonly worker: Worker<RunJob>;
  private clients: ClosableRedis[] = [];
  private stopping = false;
  private closing: Promise<void> | undefined;

  constructor(
    createWorker: (processor: Processor<RunJob, void>) => Worker<RunJob>,
    private readonly handler: RunJobHandler,
    private readonly onError: (error: Error) => void,
    private readonly onClosed: () => void,
  ) {
    // Three parameters, so BullMQ hands over its per-job cancellation signal.
    this.worker = createWorker((job, token, signal) => this.process(job, token, signal));
    this.worker.on('error', onError);
    const backend = this.worker.getBackend();
    this.worker
      .waitUntilReady()
      .then(() => Promise.all([backend.client, backend.blockingClient]))
      .then(
        (clients) => (this.clients = clients.filter((c) => c !== undefined) as unknown as ClosableRedis[]),
        () => undefined,
      );
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.stopping = true;
      for (const controller of this.running.keys()) controller.abort(new Error('run consumer closed'));
      // The port's promise: close returns only after the running handlers did.
      await Promise.all(this.running.values());
      await this.closeWorker();
      this.onClosed();
    })();
    return this.closing;
  }

  /**
   * BullMQ's graceful close records the last results, then waits for each connection's 'end', which
   * ioredis never emits for a connection disconnected while waiting to reconnect: with Redis away it
   * would hang (and keep BullMQ's timers running). So: graceful while connected, otherwise end the
   * connections ourselves first (failing BullMQ's waiting commands) and close forcibly.
   */
  private async closeWorker(): Promise<void> {
    const healthy = this.clients.length > 0 && this.clients.every((c) => c.status === 'ready');
    if (!healthy) await Promise.all(this.clients.map(endRedisClient));
    const closed = this.worker.close(!healthy);
    if (await within(closed, CLOSE_GRACE_MS).catch(() => true)) return;
    // Redis went away during the graceful close itself.
    this.onError(new Error('Redis unreachable while closing a run consumer; its connections were dropped'));
    await Promise.all(this.clients.map(endRedisClient));
    await within(closed, CLOSE_GRACE_MS).catch(() => true);
  }

  private async process(job: Job<RunJob>, token: string | undefined, bullSignal: AbortSignal | undefined) {
    const controller = new AbortController();
    const cancel = () => controller.abort(bullSignal?.reason);
    bullSignal?.addEventListener('abort', cancel, { once: true });
    // A job fetched just as close began still sees an aborted signal.
    if (this.stopping) controller.abort(new Error('run consumer closed'));
    const handled = Promise.resolve().then(() =>
      this.handler(job.data, { attempt: job.attemptsMade + 1, signal: controller.signal }),
    );
    this.running.set(
      controller,
      handled.catch(() => undefined),
    );
    try {
      await handled;
    } catch (error) {
      if (this.stopping && token) {
        // Cut short by our own shutdown: back to waiting for another consumer, attempt unused.
        await job.moveToWait(token);
        throw new WaitingError();
      }
      throw error instanceof Error ? error : new Error(String(error));
    } finally {
      this.running.delete(controller);
      bullSignal?.removeEventListener('abort', cancel);
    }
  }
}
