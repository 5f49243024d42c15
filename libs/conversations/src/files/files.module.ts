import { BLOB_STORE, type BlobStore } from '@fed/storage';
import { Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { DeliverablesModule } from '../deliverables/deliverables.module';
import { FilesSweepJob } from './files-sweep.job';
import { FilesController } from './files.controller';
import { FilesRepository } from './files.repository';
import { type FilesOptions, FilesService } from './files.service';

/** The service on a data source, as this module and the protocol front doors build it. */
export function filesServiceFor(dataSource: DataSource, store: BlobStore, options?: FilesOptions): FilesService {
  return new FilesService(new FilesRepository(dataSource), store, options);
}

/**
 * Uploaded files of document 2 (`/v1/files`); the blob store is the process's (BLOB_STORE). Its sweep
 * also takes orphan deliverable blobs, so it needs DeliverablesService.
 */
@Module({
  imports: [DeliverablesModule],
  controllers: [FilesController],
  providers: [
    {
      provide: FilesService,
      inject: [DataSource, BLOB_STORE],
      useFactory: (dataSource: DataSource, store: BlobStore) => filesServiceFor(dataSource, store),
    },
    FilesSweepJob,
  ],
  exports: [FilesService],
})
export class FilesModule {}
