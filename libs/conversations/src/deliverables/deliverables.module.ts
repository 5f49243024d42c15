import { BLOB_STORE, type BlobStore } from '@fed/storage';
import { Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { DeliverablesController } from './deliverables.controller';
import { DeliverablesRepository } from './deliverables.repository';
import { DeliverablesService } from './deliverables.service';

/** Downloads of deliverables (the artifact proxy of document 2). */
@Module({
  controllers: [DeliverablesController],
  providers: [
    {
      provide: DeliverablesService,
      inject: [DataSource, BLOB_STORE],
      useFactory: (dataSource: DataSource, blobs: BlobStore) =>
        new DeliverablesService(new DeliverablesRepository(dataSource), blobs),
    },
  ],
  exports: [DeliverablesService],
})
export class DeliverablesModule {}
