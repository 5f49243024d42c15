import { RUN_QUEUE, type RunConsumer, type RunQueue } from '@fed/bus';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import type { RunJob } from '@fed/contracts';
import { SHUTDOWN_SIGNAL } from '@fed/server';
import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { RunningTurns } from './turn/running-turns';
import { TurnRunner } from './turn/turn-runner';

/**
 * The runtime's life: takes jobs from the run queue, stops turns on `run.cancelled`, refreshes the
 * running turns' heartbeats every third of the stall interval. When the process starts shutting
 * down the consumer closes at once: running turns hand their jobs back (without using up an attempt)
 * instead of holding the drain of open requests (in platform, their own model calls).
 */
@Injectable()
export class AgentWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private consumer: RunConsumer | undefined;
  private closing: Promise<void> | undefined;

  constructor(
    @Inject(RUN_QUEUE) private readonly queue: RunQueue,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
    @Inject(SHUTDOWN_SIGNAL) private readonly shutdown: AbortSignal,
    private readonly runner: TurnRunner,
    private readonly running: RunningTurns,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const { concurrency, stallMs } = this.config.agent;
    await this.running.open(Math.max(100, Math.floor(stallMs / 3)));
    this.consumer = this.queue.consume((job, context) => this.take(job, context.signal), { concurrency, stallMs });
    this.shutdown.addEventListener('abort', () => void this.close(), { once: true });
  }

  async onModuleDestroy(): Promise<void> {
    await this.close();
  }

  private close(): Promise<void> {
    this.closing ??= (async () => {
      await this.consumer?.close();
      await this.running.close();
    })();
    return this.closing;
  }

  private async take(job: RunJob, closing: AbortSignal): Promise<void> {
    const control = this.running.start(job.runId, job.conversationId);
    const handBack = () => control.stop('shutdown');
    closing.addEventListener('abort', handBack, { once: true });
    if (closing.aborted) handBack();
    try {
      await this.runner.run(job, control);
    } finally {
      closing.removeEventListener('abort', handBack);
      this.running.end(control);
    }
  }
}
