import { type Job, Queue, UnrecoverableError, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import {
  CLOSE_GRACE_MS,
  NOTIFICATION_CONCURRENCY,
  type NotificationHandler,
  type NotificationJob,
  type NotificationQueue,
  type RetryPolicy,
} from './notification-queue';
import { PermanentDeliveryError } from './notifier.port';

export interface BullNotificationQueueOptions extends RetryPolicy {
  redisUrl: string;
  /** The bus's key prefix (`fed:`): the queue's keys are `fed:notifications:*`. */
  keyPrefix: string;
  /** Redis connection errors; retried by ioredis, so this is for logging. */
  onError?: (error: Error) => void;
}

const QUEUE_NAME = 'notifications';
// Finished jobs are evidence for an operator looking at the queue, not state: kept a day (sent) or a week (lost).
const KEEP_SENT = { age: 24 * 3600, count: 1000 };
const KEEP_LOST = { age: 7 * 24 * 3600, count: 10_000 };

/** Distributed: a BullMQ queue of its own beside the run queue; any admin-service instance may send. */
export class BullNotificationQueue implements NotificationQueue {
  readonly kind = 'redis';
  private readonly client: Redis;
  private readonly queue: Queue<NotificationJob>;
  private readonly prefix: string;
  private worker: Worker<NotificationJob> | undefined;
  private closing: Promise<void> | undefined;

  constructor(private readonly options: BullNotificationQueueOptions) {
    // BullMQ puts its own ':' after the prefix.
    this.prefix = options.keyPrefix.replace(/:$/, '');
    // Enqueue fails after a few reconnects instead of waiting for Redis forever (the admin call waits for it).
    this.client = new Redis(options.redisUrl, {
      connectionName: `${this.prefix}:notifications`,
      connectTimeout: 2000,
      maxRetriesPerRequest: 3,
      retryStrategy: (times) => Math.min(times * 50, 2000),
    });
    this.client.on('error', (error: Error) => options.onError?.(error));
    this.queue = new Queue<NotificationJob>(QUEUE_NAME, { connection: this.client, prefix: this.prefix });
    this.queue.on('error', (error: Error) => options.onError?.(error));
  }

  async enqueue(job: NotificationJob): Promise<void> {
    if (this.closing) throw new Error('notification queue is closed');
    await this.queue.add(job.event, job, {
      attempts: this.options.attempts,
      backoff: { type: 'exponential', delay: this.options.backoffMs },
      removeOnComplete: KEEP_SENT,
      removeOnFail: KEEP_LOST,
    });
  }

  consume(handler: NotificationHandler, onGiveUp: (job: NotificationJob, error: Error) => void): void {
    if (this.worker) throw new Error('notification queue already has a consumer');
    const process = async (job: Job<NotificationJob>) => {
      const attempt = job.attemptsMade + 1;
      try {
        await handler(job.data, attempt);
      } catch (caught) {
        const error = caught instanceof Error ? caught : new Error(String(caught));
        if (error instanceof PermanentDeliveryError || attempt >= this.options.attempts) {
          onGiveUp(job.data, error);
          throw new UnrecoverableError(error.message);
        }
        throw error;
      }
    };
    this.worker = new Worker<NotificationJob>(QUEUE_NAME, process, {
      // BullMQ's blocking fetch needs a connection of its own with unlimited retries.
      connection: {
        url: this.options.redisUrl,
        connectionName: `${this.prefix}:notifications-worker`,
        connectTimeout: 2000,
        maxRetriesPerRequest: null,
        retryStrategy: (times: number) => Math.min(times * 50, 2000),
      },
      prefix: this.prefix,
      concurrency: NOTIFICATION_CONCURRENCY,
    });
    this.worker.on('error', (error: Error) => this.options.onError?.(error));
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.worker) {
        // A send stuck on a silent server is given up (BullMQ hands the job out again once its lock lapses).
        const graceful = this.worker.close();
        const done = await Promise.race([graceful.then(() => true), sleep(CLOSE_GRACE_MS).then(() => false)]);
        if (!done) await this.worker.close(true).catch(() => undefined);
      }
      await this.queue.close().catch(() => undefined);
      await this.client.quit().catch(() => this.client.disconnect());
    })();
    return this.closing;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
