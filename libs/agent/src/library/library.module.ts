import { type BlobStore } from '@fed/storage';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { type DataSource } from 'typeorm';
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

/** The administrator's service on a data source, as platformctl and the tests build it. */
export function libraryAdminServiceFor(dataSource: DataSource, blobs: BlobStore): LibraryAdminService {
  return new LibraryAdminService(new LibraryRepository(dataSource), blobs);
}
