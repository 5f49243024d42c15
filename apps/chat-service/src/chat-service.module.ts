import { Module } from '@nestjs/common';
import {
  CatalogModule,
  CatalogService,
  CatalogStoreModule,
  LibraryModule,
  LibraryService,
  LibraryStoreModule,
  MarketplaceAgentsModule,
  ToolServersModule,
} from '@fed/agent';
import {
  ConversationsModule,
  DeliverablesModule,
  FilesModule,
  SearchModule,
  TurnsModule,
  UiResourcesModule,
} from '@fed/conversations';
import { MasterDataListsModule, UserProfileModule } from '@fed/identity';

// Document 2's chat, conversation and file APIs; the host (config, logging, health, database, bus, auth) is shared.
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
    SearchModule,
    // The Marketplace agents (`agentId`, `X-Agent-Id`): who owns a request in that edition.
    MarketplaceAgentsModule,
    // User information and master data as users read them (SaaS only): /v1/users/me, /v1/organizations, /v1/job-types.
    UserProfileModule,
    MasterDataListsModule,
  ],
})
export class ChatServiceModule {}
