import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { LOGGER, type Logger } from '@fed/observability';
import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { ConversationsService } from './conversations.service';

const HOUR_MS = 3_600_000;

/**
 * Moves conversations idle for more than CHAT_ARCHIVE_AFTER_DAYS days to the archive: at start, then
 * hourly. Instances running it together take different rows (SKIP LOCKED), so no coordination is needed.
 */
@Injectable()
export class ArchiveRetentionJob implements OnApplicationBootstrap, OnModuleDestroy {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;
  private stopped = false;

  constructor(
    private readonly conversations: ConversationsService,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.chat.archiveAfterDays === 0) return;
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

  /** One pass over every user's conversations; a pass already under way is joined, not doubled. */
  run(): Promise<number> {
    this.running ??= this.conversations
      .archiveIdle(this.config.chat.archiveAfterDays, undefined, () => this.stopped)
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  private async runLogged(): Promise<void> {
    try {
      const archived = await this.run();
      if (archived > 0) this.logger.info({ archived }, 'idle conversations archived');
    } catch (error) {
      this.logger.error({ err: error }, 'archiving idle conversations failed; retrying within the hour');
    }
  }
}
