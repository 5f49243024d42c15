import { Module } from '@nestjs/common';
import {
  CatalogModule,
  CatalogService,
  CatalogStoreModule,
  LibraryModule,
  LibraryService,
  LibraryStoreModule,
  ToolServersModule,
} from '@fed/agent';
import {
  ConversationsModule,
  DeliverablesModule,
  FilesModule,
  TurnsModule,
  UiResourcesModule,
} from '@fed/conversations';

// Chat, conversation and file APIs of document 2, streaming agent turns as server-sent events.
// The host (config, logging, health, database, bus, auth) is shared.
@Module({
  imports: [
    TurnsModule.withCatalog(CatalogStoreModule, CatalogService, {
      module: LibraryStoreModule,
      provider: LibraryService,
    }),
    LibraryModule,
    ConversationsModule,
    CatalogModule,
    UiResourcesModule,
    ToolServersModule,
    DeliverablesModule,
    FilesModule,
  ],
})
export class ChatServiceModule {}
