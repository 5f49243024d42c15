import { RUN_STREAM, type RunStream, SIGNALS, type Signals } from '@fed/bus';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { TurnLedger } from '@fed/conversations';
import { MemoryStore } from '@fed/memory';
import { LOGGER, type Logger } from '@fed/observability';
import { Module, type OnModuleDestroy } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CatalogStoreModule } from '../catalog/catalog.module';
import { CatalogService } from '../catalog/catalog.service';
import { AgentWorker } from './agent-worker';
import { GatewayCredentials } from './model/gateway-credentials';
import { ModelClient } from './model/model-client';
import { AskUserTool } from './tools/ask-user.tool';
import { SearchMemoryTool } from './tools/search-memory.tool';
import { ToolBox } from './tools/tool-box';
import { AgentLoop } from './turn/agent-loop';
import { RunningTurns } from './turn/running-turns';
import { SharedMemoryHook } from './turn/shared-memory-hook';
import { TurnAnswerer } from './turn/turn-answerer';
import { TurnRunner } from './turn/turn-runner';

/** The agent: takes turns from the run queue, calls models through llm-gateway, runs tools, streams chunks. */
@Module({
  imports: [CatalogStoreModule],
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
            tokenUrl: `${config.auth.authUrl}/federation/auth/v1/token`,
          }),
        ),
    },
    {
      provide: TurnAnswerer,
      inject: [DataSource, CatalogService, ModelClient, SERVICE_CONFIG, LOGGER],
      useFactory: (
        dataSource: DataSource,
        catalog: CatalogService,
        model: ModelClient,
        config: ServiceConfig,
        logger: Logger,
      ) => {
        const toolbox = new ToolBox([new SearchMemoryTool(new MemoryStore(dataSource)), new AskUserTool()]);
        return new TurnAnswerer(
          catalog,
          new AgentLoop(model, config.agent.maxSteps, logger),
          { open: async () => ({ toolbox, close: async () => undefined }) },
          new SharedMemoryHook(),
          { agentName: config.chat.modelName, models: config.agent.models },
        );
      },
    },
    {
      provide: TurnRunner,
      inject: [TurnLedger, RUN_STREAM, TurnAnswerer, SERVICE_CONFIG, LOGGER],
      useFactory: (
        ledger: TurnLedger,
        stream: RunStream,
        answerer: TurnAnswerer,
        config: ServiceConfig,
        logger: Logger,
      ) =>
        new TurnRunner(
          ledger,
          stream,
          answerer,
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
      inject: [TurnLedger, SIGNALS, LOGGER],
      useFactory: (ledger: TurnLedger, signals: Signals, logger: Logger) => new RunningTurns(ledger, signals, logger),
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
