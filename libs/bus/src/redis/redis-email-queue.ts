import { type EmailJob } from '@fed/contracts';
import { type Job, Queue, UnrecoverableError, Worker } from 'bullmq';
import { type Redis } from 'ioredis';
import { type EmailJobHandler, type EmailQueue, PermanentDeliveryError } from '../ports';
import { within } from '../internal/within';
import { type EmailQueueSettings, emailQueueDefaults } from '../settings';
import {
  closeRedisClient,
  createRedisClient,
  keyspace,
  type RedisEndpoint,
  workerConnectionOptions,
} from './redis-connection';

export interface RedisEmailQueueOptions extends RedisEndpoint, EmailQueueSettings {}

// Queued jobs of earlier releases live under this name: it stays, so they drain.
const QUEUE_NAME = 'notifications';
// Finished jobs are for an operator to look at: kept a day (sent) or a week (lost).
const KEEP_SENT = { age: 24 * 3600, count: 1000 };
const KEEP_LOST = { age: 7 * 24 * 3600, count: 10_000 };

export class RedisEmailQueue implements EmailQueue {
  readonly kind = 'redis';
  private readonly client: Redis;
  private readonly queue: Queue<EmailJob>;
  private readonly bullPrefix: string;
  private worker: Worker<EmailJob> | undefined;
  private closing: Promise<void> | undefined;

  constructor(private readonly options: RedisEmailQueueOptions) {
    // BullMQ puts its own ':' after the prefix.
    this.bullPrefix = keyspace(options.keyPrefix).slice(0, -1);
    // Fails after a few reconnects instead of waiting for Redis forever.
    this.client = createRedisClient(options, 'email-queue');
    this.queue = new Queue<EmailJob>(QUEUE_NAME, { connection: this.client, prefix: this.bullPrefix });
    this.queue.on('error', (error: Error) => options.onError?.(error));
  }

  async enqueue(job: EmailJob): Promise<void> {
    if (this.closing) throw new Error('notification queue is closed');
    await this.queue.add(job.event, job, {
      attempts: this.options.attempts,
      backoff: { type: 'exponential', delay: this.options.backoffMs },
      removeOnComplete: KEEP_SENT,
      removeOnFail: KEEP_LOST,
    });
  }

  consume(handler: EmailJobHandler, onGiveUp: (job: EmailJob, error: Error) => void): void {
    if (this.worker) throw new Error('notification queue already has a consumer');
    const process = async (job: Job<EmailJob>) => {
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
    this.worker = new Worker<EmailJob>(QUEUE_NAME, process, {
      connection: workerConnectionOptions(this.options, 'email-worker'),
      prefix: this.bullPrefix,
      concurrency: emailQueueDefaults.concurrency,
    });
    this.worker.on('error', (error: Error) => this.options.onError?.(error));
  }

  unsent(): number {
    return 0;
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.worker) {
        // A send stuck on a silent server is given up (BullMQ hands the job out again once its lock lapses).
        const graceful = this.worker.close();
        if (!(await within(graceful, emailQueueDefaults.closeGraceMs).catch(() => true))) {
          await this.worker.close(true).catch(() => undefined);
        }
      }
      await this.queue.close().catch(() => undefined);
      await closeRedisClient(this.client);
    })();
    return this.closing;
  }
}
