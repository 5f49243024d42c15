import { RUN_QUEUE, type RunConsumer, type RunJobContext, RunJobLostError, type RunQueue } from '@fed/bus';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import type { RunJob } from '@fed/contracts';
import { type TurnOutcome, contextFrom, inSpan } from '@fed/observability';
import { SHUTDOWN_DRAINS, type ShutdownDrains } from '@fed/server';
import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { RunningTurns } from './turn/running-turns';
import { TurnRunner } from './turn/turn-runner';

/** Runs queue jobs, cancels and heartbeats; on shutdown drains first, then hands jobs back without using an attempt. */
@Injectable()
export class AgentWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private consumer: RunConsumer | undefined;
  private closing: Promise<void> | undefined;

  constructor(
    @Inject(RUN_QUEUE) private readonly queue: RunQueue,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
    @Inject(SHUTDOWN_DRAINS) private readonly drains: ShutdownDrains,
    private readonly runner: TurnRunner,
    private readonly running: RunningTurns,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const { concurrency, stallMs } = this.config.agent;
    await this.running.open(Math.max(100, Math.floor(stallMs / 3)));
    this.consumer = this.queue.consume((job, context) => this.take(job, context), {
      concurrency,
      stallMs,
      onHoldChange: (runId, hold) => this.running.holdChanged(runId, hold),
    });
    this.drains.add((hurry) => this.drain(hurry));
  }

  async onModuleDestroy(): Promise<void> {
    await this.close();
  }

  private async drain(hurry: AbortSignal): Promise<void> {
    if (this.consumer) await this.running.drain(this.consumer.drain(), this.config.agent.drainMs, hurry);
    await this.close();
  }

  private close(): Promise<void> {
    this.closing ??= (async () => {
      await this.consumer?.close();
      await this.running.close();
    })();
    return this.closing;
  }

  private async take(job: RunJob, context: RunJobContext): Promise<void> {
    const control = this.running.start(job.runId, job.conversationId);
    control.jobHold = context;
    const closing = context.signal;
    const handBack = () => control.stop(closing.reason instanceof RunJobLostError ? 'job_lost' : 'shutdown');
    closing.addEventListener('abort', handBack, { once: true });
    if (closing.aborted) handBack();
    let outcome: TurnOutcome | undefined;
    try {
      // One span per turn, continuing the trace of the request that queued it (the job carries it).
      outcome = await inSpan(
        'agent.turn',
        {
          parent: contextFrom(job),
          attributes: { 'fed.conversation_id': job.conversationId, 'fed.run_id': job.runId },
        },
        () => this.runner.run(job, control),
      );
    } finally {
      closing.removeEventListener('abort', handBack);
      this.running.end(control, outcome);
    }
  }
}
