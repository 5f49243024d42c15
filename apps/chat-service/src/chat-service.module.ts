import { Module } from '@nestjs/common';
import { CatalogModule, CatalogService, CatalogStoreModule } from '@fed/agent';
import { ConversationsModule, TurnsModule } from '@fed/conversations';

// Chat, conversation and file APIs of document 2, streaming agent turns as server-sent events.
// The host (config, logging, health, database, bus, auth) is shared.
@Module({ imports: [TurnsModule.withCatalog(CatalogStoreModule, CatalogService), ConversationsModule, CatalogModule] })
export class ChatServiceModule {}
