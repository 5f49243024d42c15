import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { LOGGER, type Logger } from '@fed/observability';
import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type RetainedLog, deleteExpiredLogRows } from './log-retention';

const HOUR_MS = 3_600_000;

/**
 * Deletes log rows past their kind's retention (AUDIT_LOG_RETENTION_DAYS, GATEWAY_LOG_RETENTION_DAYS,
 * LLM_LOG_RETENTION_DAYS;
 * 0 keeps them): at start, then hourly, in batches.
 */
@Injectable()
export class LogRetentionJob implements OnApplicationBootstrap, OnModuleDestroy {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<Record<RetainedLog, number>> | undefined;
  private stopped = false;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    void this.runLogged();
    this.timer = setInterval(() => void this.runLogged(), HOUR_MS);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    // A pass stops after its current batch; the pool must outlive it.
    await this.running?.catch(() => undefined);
  }

  /** One pass over every log kind; a pass already under way is joined, not doubled. */
  run(now = Date.now()): Promise<Record<RetainedLog, number>> {
    this.running ??= this.pass(now).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async pass(now: number): Promise<Record<RetainedLog, number>> {
    const days: Record<RetainedLog, number> = {
      audit: this.config.logs.auditRetentionDays,
      gateway: this.config.logs.gatewayRetentionDays,
      llm: this.config.logs.llmRetentionDays,
    };
    const deleted: Record<RetainedLog, number> = { audit: 0, gateway: 0, llm: 0 };
    for (const log of ['audit', 'gateway', 'llm'] as const) {
      if (days[log] === 0 || this.stopped) continue;
      deleted[log] = await deleteExpiredLogRows(this.dataSource, log, days[log], { now, stopped: () => this.stopped });
    }
    return deleted;
  }

  private async runLogged(): Promise<void> {
    try {
      const deleted = await this.run();
      if (deleted.audit + deleted.gateway + deleted.llm > 0) this.logger.info({ deleted }, 'expired log rows deleted');
    } catch (error) {
      this.logger.error({ err: error }, 'deleting expired log rows failed; retrying within the hour');
    }
  }
}
