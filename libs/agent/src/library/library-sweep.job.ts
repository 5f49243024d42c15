import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { LOGGER, type Logger } from '@fed/observability';
import { BLOB_STORE, type BlobStore, sweepUnreferencedBlobs } from '@fed/storage';
import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { LIBRARY_PREFIX } from './library-admin.service';
import { LibraryRepository } from './library.repository';

const SWEEP_INTERVAL_MS = 10 * 60_000;

export interface LibrarySweepResult {
  /** Blobs under `library/` that no item names, older than the sweep age. */
  orphanBlobs: number;
}

/**
 * Removes library blobs that no item names (a `library add` that died between blob and row, a
 * `library remove` whose blob delete failed), older than FILES_SWEEP_AGE_SECONDS: at start, then
 * every ten minutes, in chat-service. Two instances deleting one orphan blob is harmless.
 */
@Injectable()
export class LibrarySweepJob implements OnApplicationBootstrap, OnModuleDestroy {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<LibrarySweepResult> | undefined;
  private stopped = false;

  constructor(
    private readonly repository: LibraryRepository,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
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
  run(): Promise<LibrarySweepResult> {
    this.running ??= sweepUnreferencedBlobs(this.blobs, LIBRARY_PREFIX, {
      olderThan: new Date(Date.now() - this.config.files.sweepAgeSeconds * 1000),
      shouldStop: () => this.stopped,
      referenced: (keys) => this.repository.referencedBlobKeys(keys),
    })
      .then((orphanBlobs) => ({ orphanBlobs }))
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  private async runLogged(): Promise<void> {
    try {
      const swept = await this.run();
      if (swept.orphanBlobs > 0) this.logger.info(swept, 'orphan library blobs swept');
    } catch (error) {
      this.logger.error({ err: error }, 'sweeping orphan library blobs failed; retrying in ten minutes');
    }
  }
}
