import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { LOGGER, type Logger } from '@fed/observability';
import { PeriodicPass } from '@fed/server';
import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { DeliverablesService } from '../deliverables/deliverables.service';
import { FilesService } from './files.service';

const SWEEP_INTERVAL_MS = 10 * 60_000;

export interface FilesSweepResult {
  uploads: number;
  /** Blobs without a row, older than the sweep age, by prefix. */
  orphanBlobs: { uploads: number; deliverables: number };
}

/** Removes abandoned uploads and unnamed blobs older than FILES_SWEEP_AGE_SECONDS, at start then every ten minutes. */
@Injectable()
export class FilesSweepJob implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly periodic: PeriodicPass<FilesSweepResult>;

  constructor(
    private readonly files: FilesService,
    private readonly deliverables: DeliverablesService,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
    @Inject(LOGGER) logger: Logger,
  ) {
    this.periodic = new PeriodicPass((shouldStop) => this.sweep(shouldStop), {
      intervalMs: SWEEP_INTERVAL_MS,
      logger,
      done: (swept) =>
        swept.uploads > 0 || swept.orphanBlobs.uploads > 0 || swept.orphanBlobs.deliverables > 0
          ? { ...swept }
          : undefined,
      messages: {
        done: 'abandoned uploads and orphan blobs swept',
        failed: 'sweeping abandoned uploads and orphan blobs failed; retrying in ten minutes',
      },
    });
  }

  onApplicationBootstrap(): void {
    this.periodic.start();
  }

  // The store and the pool must outlive a pass under way.
  onModuleDestroy(): Promise<void> {
    return this.periodic.stop();
  }

  /** One sweep; a sweep already under way is joined, not doubled. */
  run(): Promise<FilesSweepResult> {
    return this.periodic.run();
  }

  private async sweep(shouldStop: () => boolean): Promise<FilesSweepResult> {
    const at = new Date();
    const ageSeconds = this.config.files.sweepAgeSeconds;
    const uploads = await this.files.sweep(ageSeconds, { at, shouldStop });
    const deliverables = await this.deliverables.sweepOrphanBlobs(
      new Date(at.getTime() - ageSeconds * 1000),
      shouldStop,
    );
    return { uploads: uploads.uploads, orphanBlobs: { uploads: uploads.orphanBlobs, deliverables } };
  }
}
