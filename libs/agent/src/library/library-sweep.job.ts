import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { LOGGER, type Logger } from '@fed/observability';
import { PeriodicPass } from '@fed/server';
import { BLOB_STORE, type BlobStore, sweepUnreferencedBlobs } from '@fed/storage';
import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { LIBRARY_PREFIX } from './library-admin.service';
import { LibraryRepository } from './library.repository';

const SWEEP_INTERVAL_MS = 10 * 60_000;

export interface LibrarySweepResult {
  /** Blobs under `library/` that no item names, older than the sweep age. */
  orphanBlobs: number;
}

/** Removes library blobs no item names, older than FILES_SWEEP_AGE_SECONDS: at start, then every ten minutes. */
@Injectable()
export class LibrarySweepJob implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly periodic: PeriodicPass<LibrarySweepResult>;

  constructor(
    private readonly repository: LibraryRepository,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
    @Inject(LOGGER) logger: Logger,
  ) {
    this.periodic = new PeriodicPass(
      async (shouldStop) => ({
        orphanBlobs: await sweepUnreferencedBlobs(this.blobs, LIBRARY_PREFIX, {
          olderThan: new Date(Date.now() - this.config.files.sweepAgeSeconds * 1000),
          shouldStop,
          referenced: (keys) => this.repository.referencedBlobKeys(keys),
        }),
      }),
      {
        intervalMs: SWEEP_INTERVAL_MS,
        logger,
        done: (swept) => (swept.orphanBlobs > 0 ? { ...swept } : undefined),
        messages: {
          done: 'orphan library blobs swept',
          failed: 'sweeping orphan library blobs failed; retrying in ten minutes',
        },
      },
    );
  }

  onApplicationBootstrap(): void {
    this.periodic.start();
  }

  // The store and the pool must outlive a pass under way.
  onModuleDestroy(): Promise<void> {
    return this.periodic.stop();
  }

  /** One sweep; a sweep already under way is joined, not doubled. */
  run(): Promise<LibrarySweepResult> {
    return this.periodic.run();
  }
}
