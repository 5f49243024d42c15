import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { LOGGER, type Logger } from '@fed/observability';
import { PeriodicPass } from '@fed/server';
import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { ConversationsService } from './conversations.service';

const HOUR_MS = 3_600_000;

/** Archives conversations idle over CHAT_ARCHIVE_AFTER_DAYS, at start, then hourly (SKIP LOCKED). */
@Injectable()
export class ArchiveRetentionJob implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly periodic: PeriodicPass<number>;

  constructor(
    private readonly conversations: ConversationsService,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
    @Inject(LOGGER) logger: Logger,
  ) {
    this.periodic = new PeriodicPass(
      (shouldStop) => this.conversations.archiveIdle(this.config.chat.archiveAfterDays, undefined, shouldStop),
      {
        intervalMs: HOUR_MS,
        logger,
        done: (archived) => (archived > 0 ? { archived } : undefined),
        messages: {
          done: 'idle conversations archived',
          failed: 'archiving idle conversations failed; retrying within the hour',
        },
      },
    );
  }

  onApplicationBootstrap(): void {
    if (this.config.chat.archiveAfterDays === 0) return;
    this.periodic.start();
  }

  // A pass stops after its current batch; the pool must outlive it.
  onModuleDestroy(): Promise<void> {
    return this.periodic.stop();
  }

  /** One pass over every user's conversations; a pass already under way is joined, not doubled. */
  run(): Promise<number> {
    return this.periodic.run();
  }
}
