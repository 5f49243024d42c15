import { BLOB_STORE, type BlobStore } from '@fed/storage';
import { Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { DeliverablesModule } from '../deliverables/deliverables.module';
import { FilesSweepJob } from './files-sweep.job';
import { FilesController } from './files.controller';
import { FilesRepository } from './files.repository';
import { FilesService } from './files.service';

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
      useFactory: (dataSource: DataSource, store: BlobStore) =>
        new FilesService(new FilesRepository(dataSource), store),
    },
    FilesSweepJob,
  ],
  exports: [FilesService],
})
export class FilesModule {}
