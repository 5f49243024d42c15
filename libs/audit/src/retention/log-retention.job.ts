import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { LOGGER, type Logger } from '@fed/observability';
import { PeriodicPass } from '@fed/server';
import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type RetainedLog, deleteExpiredLogRows } from './log-retention';

const HOUR_MS = 3_600_000;

/** Deletes log rows past their kind's *_RETENTION_DAYS (0 keeps them): at start, then hourly, in batches. */
@Injectable()
export class LogRetentionJob implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly periodic: PeriodicPass<Record<RetainedLog, number>>;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
    @Inject(LOGGER) logger: Logger,
  ) {
    this.periodic = new PeriodicPass((shouldStop) => this.pass(Date.now(), shouldStop), {
      intervalMs: HOUR_MS,
      logger,
      done: (deleted) => (Object.values(deleted).some((rows) => rows > 0) ? { deleted } : undefined),
      messages: {
        done: 'expired log rows deleted',
        failed: 'deleting expired log rows failed; retrying within the hour',
      },
    });
  }

  onApplicationBootstrap(): void {
    this.periodic.start();
  }

  // A pass stops after its current batch; the pool must outlive it.
  onModuleDestroy(): Promise<void> {
    return this.periodic.stop();
  }

  /** One pass over every log kind; a pass already under way is joined, not doubled. */
  run(now = Date.now()): Promise<Record<RetainedLog, number>> {
    return this.periodic.run((shouldStop) => this.pass(now, shouldStop));
  }

  private async pass(now: number, shouldStop: () => boolean): Promise<Record<RetainedLog, number>> {
    const days: Record<RetainedLog, number> = {
      audit: this.config.logs.auditRetentionDays,
      gateway: this.config.logs.gatewayRetentionDays,
      llm: this.config.logs.llmRetentionDays,
      access: this.config.logs.accessRetentionDays,
      guardrail: this.config.logs.guardrailRetentionDays,
    };
    const deleted: Record<RetainedLog, number> = { audit: 0, gateway: 0, llm: 0, access: 0, guardrail: 0 };
    for (const log of ['audit', 'gateway', 'llm', 'access', 'guardrail'] as const) {
      if (days[log] === 0 || shouldStop()) continue;
      deleted[log] = await deleteExpiredLogRows(this.dataSource, log, days[log], { now, stopped: shouldStop });
    }
    return deleted;
  }
}
