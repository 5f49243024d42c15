import { type EmailJob } from '@fed/contracts';
import { type EmailJobHandler, type EmailQueue, PermanentDeliveryError } from '../ports';
import { type EmailQueueSettings, emailQueueDefaults } from '../settings';

interface Entry {
  job: EmailJob;
  attempt: number;
}

/** Jobs still waiting when the process stops are lost (`unsent` counts them for the log). */
export class MemoryEmailQueue implements EmailQueue {
  readonly kind = 'in-process';
  private readonly ready: Entry[] = [];
  private readonly delayed = new Map<NodeJS.Timeout, Entry>();
  private readonly running = new Set<Promise<void>>();
  private handler: EmailJobHandler | undefined;
  private onGiveUp: (job: EmailJob, error: Error) => void = () => undefined;
  private closed = false;

  constructor(private readonly settings: EmailQueueSettings) {}

  async enqueue(job: EmailJob): Promise<void> {
    if (this.closed) throw new Error('notification queue is closed');
    this.ready.push({ job, attempt: 1 });
    this.pump();
  }

  consume(handler: EmailJobHandler, onGiveUp: (job: EmailJob, error: Error) => void): void {
    if (this.handler) throw new Error('notification queue already has a consumer');
    this.handler = handler;
    this.onGiveUp = onGiveUp;
    this.pump();
  }

  unsent(): number {
    return this.ready.length + this.delayed.size + this.running.size;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.delayed.keys()) clearTimeout(timer);
    this.delayed.clear();
    this.ready.length = 0;
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, emailQueueDefaults.closeGraceMs)));
    await Promise.race([Promise.allSettled([...this.running]), grace]);
    clearTimeout(timer);
  }

  private pump(): void {
    const handler = this.handler;
    while (handler && !this.closed && this.running.size < emailQueueDefaults.concurrency && this.ready.length > 0) {
      const entry = this.ready.shift() as Entry;
      const run: Promise<void> = this.attempt(handler, entry).finally(() => {
        this.running.delete(run);
        this.pump();
      });
      this.running.add(run);
    }
  }

  private async attempt(handler: EmailJobHandler, entry: Entry): Promise<void> {
    try {
      await handler(entry.job, entry.attempt);
    } catch (caught) {
      const error = caught instanceof Error ? caught : new Error(String(caught));
      if (error instanceof PermanentDeliveryError || entry.attempt >= this.settings.attempts || this.closed) {
        this.onGiveUp(entry.job, error);
        return;
      }
      const next = { job: entry.job, attempt: entry.attempt + 1 };
      const delay = this.settings.backoffMs * 2 ** (entry.attempt - 1);
      const timer = setTimeout(() => {
        this.delayed.delete(timer);
        this.ready.push(next);
        this.pump();
      }, delay);
      this.delayed.set(timer, next);
    }
  }
}
