import { RUN_STREAM, type RunStream, SIGNALS, type Signals } from '@fed/bus';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { TurnLedger } from '@fed/conversations';
import { MemberProfiles } from '@fed/identity';
import { MemoryItems, MemorySearch, memoryEmbeddings } from '@fed/memory';
import { GuardrailAlertWriter, GuardrailEngine, GuardrailsModule, LlmLogWriter, LlmLogWriterModule } from '@fed/audit';
import { LOGGER, type Logger, METRICS, type Metrics } from '@fed/observability';
import { BLOB_STORE, type BlobStore } from '@fed/storage';
import { Module, type OnModuleDestroy } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { MarketplaceAgentsModule } from '../agents/marketplace-agents.module';
import { MarketplaceAgentsRepository } from '../agents/marketplace-agents.repository';
import { CatalogStoreModule } from '../catalog/catalog.module';
import { CatalogService } from '../catalog/catalog.service';
import { LibraryStoreModule } from '../library/library.module';
import { LibraryRepository } from '../library/library.repository';
import { AgentWorker } from './agent-worker';
import { AttachmentReader } from './attachments/attachment-reader';
import { GatewayCredentials } from './model/gateway-credentials';
import { ModelClient } from './model/model-client';
import { DeliverableStore } from './output/turn-deliverables';
import { TurnPrompt } from './prompt/turn-prompt';
import { AskUserTool } from './tools/ask-user.tool';
import { SaveMemoryTool } from './tools/save-memory.tool';
import { SearchMemoryTool } from './tools/search-memory.tool';
import { ShowMapTool } from './tools/show-map.tool';
import { WriteFileTool } from './tools/write-file.tool';
import { AgentLoop } from './turn/agent-loop';
import { GuardedAnswerer } from './turn/guarded-answerer';
import { RunningTurns } from './turn/running-turns';
import { SharedMemoryHook } from './turn/shared-memory-hook';
import { TurnAnswerer } from './turn/turn-answerer';
import { TurnRunner } from './turn/turn-runner';
import { ToolServerRepository } from '../toolservers/tool-server.repository';
import { type ToolServerSecrets } from '../toolservers/tool-server-secrets';
import { ToolServerNetwork } from '../toolservers/tool-server-network';
import { ToolServerTurnTools } from '../toolservers/tool-server-turn-tools';
import { TOOL_SERVER_SECRETS, ToolServersModule } from '../toolservers/tool-servers.module';

/** The agent: takes turns from the run queue, calls models through llm-gateway, runs tools, streams chunks. */
@Module({
  // LlmLogWriterModule: the LLM log's rows are written by the service that makes the model calls.
  // GuardrailsModule: the content filter's rules (checked at start) and its alert writer.
  imports: [
    CatalogStoreModule,
    LibraryStoreModule,
    ToolServersModule,
    LlmLogWriterModule,
    GuardrailsModule,
    MarketplaceAgentsModule,
  ],
  providers: [
    { provide: TurnLedger, inject: [DataSource], useFactory: (dataSource: DataSource) => new TurnLedger(dataSource) },
    {
      provide: ModelClient,
      inject: [SERVICE_CONFIG],
      useFactory: (config: ServiceConfig) =>
        new ModelClient(
          {
            gatewayUrl: config.agent.gatewayUrl,
            timeoutMs: config.agent.turnTimeoutMs,
            connections: config.agent.concurrency,
          },
          new GatewayCredentials({
            apiKey: config.agent.gatewayApiKey,
            clientId: config.agent.clientId,
            clientSecret: config.agent.clientSecret,
            tokenUrl: config.agent.tokenUrl,
          }),
        ),
    },
    {
      // Required: the host provides it to every app running turns; without it a turn would silently lose its files.
      provide: TurnPrompt,
      inject: [CatalogService, LibraryRepository, BLOB_STORE],
      useFactory: (catalog: CatalogService, library: LibraryRepository, blobs: BlobStore) =>
        new TurnPrompt(catalog, new AttachmentReader(blobs, library)),
    },
    {
      provide: TurnAnswerer,
      inject: [
        DataSource,
        TurnPrompt,
        ModelClient,
        SERVICE_CONFIG,
        LOGGER,
        ToolServerRepository,
        TOOL_SERVER_SECRETS,
        LlmLogWriter,
        MarketplaceAgentsRepository,
      ],
      useFactory: (
        dataSource: DataSource,
        prompt: TurnPrompt,
        model: ModelClient,
        config: ServiceConfig,
        logger: Logger,
        toolServers: ToolServerRepository,
        toolServerKey: { secrets?: ToolServerSecrets },
        llmLog: LlmLogWriter,
        agents: MarketplaceAgentsRepository,
      ) => {
        // The shared memory: the same search as the admin API's (without its quota), and saving from non-private turns.
        const embeddings = memoryEmbeddings(config.memory, config.agent.gatewayApiKey);
        const profiles = new MemberProfiles(dataSource);
        const builtIn = [
          new SearchMemoryTool(new MemorySearch(dataSource, embeddings), profiles),
          new SaveMemoryTool(new MemoryItems(dataSource, embeddings), profiles),
          new AskUserTool(),
          new ShowMapTool(),
          new WriteFileTool(),
        ];
        return new TurnAnswerer(
          prompt,
          new AgentLoop(model, config.agent.maxSteps, logger, llmLog),
          new ToolServerTurnTools(builtIn, toolServers, toolServerKey.secrets, logger, {
            network: ToolServerNetwork.of(config.toolServers.allowPrivateAddresses),
          }),
          new SharedMemoryHook(),
          { agentName: config.chat.modelName, models: config.agent.models },
          agents,
        );
      },
    },
    {
      provide: GuardedAnswerer,
      inject: [TurnAnswerer, GuardrailEngine, GuardrailAlertWriter],
      useFactory: (answerer: TurnAnswerer, engine: GuardrailEngine, alerts: GuardrailAlertWriter) =>
        new GuardedAnswerer(answerer, engine, alerts, 'agent-runtime'),
    },
    {
      provide: TurnRunner,
      inject: [TurnLedger, RUN_STREAM, GuardedAnswerer, SERVICE_CONFIG, LOGGER, BLOB_STORE],
      useFactory: (
        ledger: TurnLedger,
        stream: RunStream,
        answerer: GuardedAnswerer,
        config: ServiceConfig,
        logger: Logger,
        blobs: BlobStore,
      ) =>
        new TurnRunner(
          ledger,
          stream,
          answerer,
          new DeliverableStore(ledger, blobs, logger),
          {
            chunkModel: config.chat.modelName,
            coalesceMs: config.agent.coalesceMs,
            turnTimeoutMs: config.agent.turnTimeoutMs,
            streamTtlSeconds: config.chat.streamTtlSeconds,
          },
          logger,
        ),
    },
    {
      provide: RunningTurns,
      inject: [TurnLedger, SIGNALS, LOGGER, METRICS],
      useFactory: (ledger: TurnLedger, signals: Signals, logger: Logger, metrics: Metrics) =>
        new RunningTurns(ledger, signals, logger, metrics),
    },
    AgentWorker,
  ],
})
export class AgentModule implements OnModuleDestroy {
  constructor(private readonly model: ModelClient) {}

  // Runs after the providers' hooks: the worker has closed its consumer, so no turn still calls the model.
  async onModuleDestroy(): Promise<void> {
    await this.model.close();
  }
}
