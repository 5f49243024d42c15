import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { LOGGER, type Logger } from '@fed/observability';
import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { type SweepResult, FilesService } from './files.service';

const SWEEP_INTERVAL_MS = 10 * 60_000;

/**
 * Removes abandoned uploads (FILES_SWEEP_AGE_SECONDS): at start, then every ten minutes. Instances
 * running it together take different rows (SKIP LOCKED); two deleting one orphan blob is harmless.
 */
@Injectable()
export class FilesSweepJob implements OnApplicationBootstrap, OnModuleDestroy {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<SweepResult> | undefined;
  private stopped = false;

  constructor(
    private readonly files: FilesService,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    void this.runLogged();
    this.timer = setInterval(() => void this.runLogged(), SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    // The store and the pool must outlive a pass under way.
    await this.running?.catch(() => undefined);
  }

  /** One sweep; a sweep already under way is joined, not doubled. */
  run(): Promise<SweepResult> {
    this.running ??= this.files
      .sweep(this.config.files.sweepAgeSeconds, { shouldStop: () => this.stopped })
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  private async runLogged(): Promise<void> {
    try {
      const swept = await this.run();
      if (swept.uploads > 0 || swept.orphanBlobs > 0) this.logger.info(swept, 'abandoned uploads swept');
    } catch (error) {
      this.logger.error({ err: error }, 'sweeping abandoned uploads failed; retrying in ten minutes');
    }
  }
}
