import { BLOB_STORE, type BlobStore } from '@fed/storage';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { LibraryAdminController } from './library-admin.controller';
import { LibraryAdminService } from './library-admin.service';
import { LibrarySweepJob } from './library-sweep.job';
import { LibraryController } from './library.controller';
import { libraryEntities } from './library.entity';
import { LibraryRepository } from './library.repository';
import { LibraryService } from './library.service';

/** LibraryService without the HTTP list: the chat request's `filepath` check, and agent-runtime's reads. */
@Module({
  imports: [TypeOrmModule.forFeature(libraryEntities)],
  providers: [LibraryRepository, LibraryService],
  exports: [LibraryRepository, LibraryService],
})
export class LibraryStoreModule {}

/** `GET /v1/library` (SaaS only), the chat request's `filepath` check, and the sweep of orphan library blobs. */
@Module({
  imports: [LibraryStoreModule],
  controllers: [LibraryController],
  providers: [LibrarySweepJob],
  exports: [LibraryStoreModule],
})
export class LibraryModule {}

/** `/api/v1/admin/library` (admin-service): the service platformctl uses, on this app's blob store. */
@Module({
  imports: [TypeOrmModule.forFeature(libraryEntities)],
  controllers: [LibraryAdminController],
  providers: [
    {
      provide: LibraryAdminService,
      inject: [DataSource, BLOB_STORE],
      useFactory: (dataSource: DataSource, blobs: BlobStore) => libraryAdminServiceFor(dataSource, blobs),
    },
  ],
})
export class LibraryAdminModule {}

/** The administrator's service on a data source, as platformctl and the tests build it. */
export function libraryAdminServiceFor(
  dataSource: DataSource,
  blobs: BlobStore,
  options: { maxFileBytes?: number } = {},
): LibraryAdminService {
  return new LibraryAdminService(new LibraryRepository(dataSource), blobs, options);
}
