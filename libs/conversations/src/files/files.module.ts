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

/** Document 2's `/v1/files` over the process's blob store; its sweep also takes orphan deliverable blobs. */
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
