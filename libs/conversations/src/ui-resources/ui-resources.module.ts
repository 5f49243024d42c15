import { Module } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { DataSource } from 'typeorm';
import { ConversationsRepository } from '../conversations/conversations.repository';
import { EXTERNAL_UI_SOURCE, type ExternalUiSource } from './external-ui-source.port';
import { UiResourcesController } from './ui-resources.controller';
import { UiResourcesRepository } from './ui-resources.repository';
import { UiResourcesService } from './ui-resources.service';

/** UiResourcesService without the HTTP endpoint: for MCP's `get_ui_resource`, served by agent-protocols. */
@Module({
  providers: [
    {
      provide: UiResourcesService,
      inject: [DataSource, ModuleRef],
      useFactory: (dataSource: DataSource, modules: ModuleRef) =>
        new UiResourcesService(
          new ConversationsRepository(dataSource),
          new UiResourcesRepository(dataSource),
          // Whichever module of the app provides the tool servers' source; looked up when first needed.
          () => externalSource(modules),
        ),
    },
  ],
  exports: [UiResourcesService],
})
export class UiResourcesStoreModule {}

/** UI resource retrieval (document 2); served by chat-service. */
@Module({
  imports: [UiResourcesStoreModule],
  controllers: [UiResourcesController],
})
export class UiResourcesModule {}

function externalSource(modules: ModuleRef): ExternalUiSource | undefined {
  try {
    return modules.get<ExternalUiSource>(EXTERNAL_UI_SOURCE, { strict: false });
  } catch {
    return undefined;
  }
}
