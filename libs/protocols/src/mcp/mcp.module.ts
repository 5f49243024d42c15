import { CatalogService, CatalogStoreModule, ToolServersModule } from '@fed/agent';
import { RUN_STREAM, type RunStream } from '@fed/bus';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import {
  ConversationReads,
  FilesService,
  TurnStarter,
  UiResourcesService,
  UiResourcesStoreModule,
} from '@fed/conversations';
import { LOGGER, type Logger } from '@fed/observability';
import { SHUTDOWN_SIGNAL } from '@fed/server';
import { BLOB_STORE, type BlobStore } from '@fed/storage';
import { Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ProtocolTurnsModule } from '../turns';
import { CancelChatTool } from './cancel-chat.tool';
import { ExecuteChatTool } from './execute-chat.tool';
import { GetFileContentTool } from './get-file-content.tool';
import { GetUiResourceTool } from './get-ui-resource.tool';
import { ListPersonasTool } from './list-personas.tool';
import { McpEndpoint } from './mcp-endpoint';
import { McpMetadataController } from './mcp-metadata.controller';
import { McpServerFactory } from './mcp-server.factory';

/** MCP of document 3: stateless `POST /api/v1/mcp` and its metadata (README.md); UI via `ToolServersModule`. */
@Module({
  imports: [ProtocolTurnsModule, CatalogStoreModule, UiResourcesStoreModule, ToolServersModule],
  controllers: [McpMetadataController],
  providers: [
    {
      provide: ConversationReads,
      inject: [DataSource],
      useFactory: (dataSource: DataSource) => new ConversationReads(dataSource),
    },
    {
      provide: ExecuteChatTool,
      inject: [TurnStarter, RUN_STREAM, FilesService, ConversationReads, SERVICE_CONFIG, SHUTDOWN_SIGNAL, LOGGER],
      useFactory: (
        starter: TurnStarter,
        runStream: RunStream,
        files: FilesService,
        reads: ConversationReads,
        config: ServiceConfig,
        shutdown: AbortSignal,
        logger: Logger,
      ) =>
        new ExecuteChatTool(starter, runStream, files, reads, {
          heartbeatMs: config.chat.heartbeatMs,
          shutdown,
          logger,
        }),
    },
    {
      provide: GetFileContentTool,
      inject: [ConversationReads, BLOB_STORE, SERVICE_CONFIG, LOGGER],
      useFactory: (reads: ConversationReads, blobs: BlobStore, config: ServiceConfig, logger: Logger) =>
        new GetFileContentTool(reads, blobs, {
          inlineBytes: config.protocols.mcpInlineFileBytes,
          baseUrl: config.http.publicUrl,
          logger,
        }),
    },
    {
      provide: McpServerFactory,
      inject: [ExecuteChatTool, GetFileContentTool, UiResourcesService, TurnStarter, CatalogService, LOGGER],
      useFactory: (
        executeChat: ExecuteChatTool,
        getFileContent: GetFileContentTool,
        uiResources: UiResourcesService,
        starter: TurnStarter,
        catalog: CatalogService,
        logger: Logger,
      ) =>
        new McpServerFactory([
          executeChat,
          getFileContent,
          new GetUiResourceTool(uiResources, logger),
          new CancelChatTool(starter, logger),
          new ListPersonasTool(catalog, logger),
        ]),
    },
    McpEndpoint,
  ],
})
export class McpModule {}
