import { CatalogService, CatalogStoreModule, LibraryService, LibraryStoreModule } from '@fed/agent';
import { FilesService, TurnStarterModule, filesServiceFor } from '@fed/conversations';
import { BLOB_STORE, type BlobStore } from '@fed/storage';
import { Module } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** What both protocol front doors run turns with: the shared turn starter, and the files service for inline files. */
@Module({
  imports: [
    TurnStarterModule.withSources({
      catalogModule: CatalogStoreModule,
      catalog: CatalogService,
      library: { module: LibraryStoreModule, provider: LibraryService },
    }),
  ],
  providers: [
    {
      provide: FilesService,
      inject: [DataSource, BLOB_STORE],
      useFactory: (dataSource: DataSource, store: BlobStore) => filesServiceFor(dataSource, store),
    },
  ],
  exports: [TurnStarterModule, FilesService],
})
export class ProtocolTurnsModule {}
