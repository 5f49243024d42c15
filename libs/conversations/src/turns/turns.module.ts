import { RUN_QUEUE, RUN_STREAM, type RunQueue, type RunStream, SIGNALS, type Signals } from '@fed/bus';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { LOGGER, type Logger } from '@fed/observability';
import { SHUTDOWN_SIGNAL } from '@fed/server';
import {
  type DynamicModule,
  Inject,
  type InjectionToken,
  Module,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
  type Type,
} from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ConversationsRepository } from '../conversations/conversations.repository';
import { conversationEntities } from '../storage';
import { ChatController } from './chat.controller';
import { TURN_CATALOG, type TurnCatalog } from './turn-catalog.port';
import { TurnFiles } from './turn-files';
import { NO_LIBRARY, TURN_LIBRARY, type TurnLibrary } from './turn-library.port';
import { TurnReaper } from './turn-reaper';
import { TurnStarter } from './turn-starter';
import { TurnsRepository } from './turns.repository';
import { TurnsService } from './turns.service';

/**
 * `POST /v1/chat/completions`, reconnect and cancel: admission, SSE relay, reaper (docs/chat.md). Exports
 * the turn starter, which other front doors use to run the same turns.
 * The app gives it the agent catalog (`withCatalog`): libs/agent depends on this lib, not the reverse.
 */
@Module({
  imports: [TypeOrmModule.forFeature(conversationEntities)],
  controllers: [ChatController],
  providers: [
    {
      provide: TurnsRepository,
      inject: [DataSource],
      useFactory: (dataSource: DataSource) => new TurnsRepository(dataSource),
    },
    {
      provide: TurnStarter,
      inject: [
        TurnsRepository,
        DataSource,
        TURN_CATALOG,
        TurnFiles,
        RUN_QUEUE,
        RUN_STREAM,
        SIGNALS,
        SERVICE_CONFIG,
        LOGGER,
      ],
      useFactory: (
        repository: TurnsRepository,
        dataSource: DataSource,
        catalog: TurnCatalog,
        files: TurnFiles,
        runQueue: RunQueue,
        runStream: RunStream,
        signals: Signals,
        config: ServiceConfig,
        logger: Logger,
      ) =>
        new TurnStarter({
          repository,
          conversations: new ConversationsRepository(dataSource),
          catalog,
          files,
          runQueue,
          runStream,
          signals,
          config,
          logger,
        }),
    },
    {
      provide: TurnFiles,
      inject: [TurnsRepository, TURN_LIBRARY, SERVICE_CONFIG],
      useFactory: (repository: TurnsRepository, library: TurnLibrary, config: ServiceConfig) =>
        new TurnFiles(repository, library, config.edition),
    },
    {
      provide: TurnsService,
      inject: [TurnStarter, RUN_STREAM, SERVICE_CONFIG, LOGGER, SHUTDOWN_SIGNAL],
      useFactory: (
        starter: TurnStarter,
        runStream: RunStream,
        config: ServiceConfig,
        logger: Logger,
        shutdown: AbortSignal,
      ) => new TurnsService({ starter, runStream, config, logger, shutdown }),
    },
    {
      provide: TurnReaper,
      inject: [TurnsRepository, TurnStarter, SERVICE_CONFIG, LOGGER],
      useFactory: (repository: TurnsRepository, starter: TurnStarter, config: ServiceConfig, logger: Logger) =>
        new TurnReaper(repository, starter, config, logger),
    },
  ],
  // A2A and MCP start, follow and cancel turns through the starter (design: "Where the next services go").
  exports: [TurnStarter],
})
export class TurnsModule implements OnApplicationBootstrap, OnModuleDestroy {
  /**
   * `catalog` (a provider of `catalogModule`) answers the chat request's persona, playbook and skill checks;
   * `library` (a provider of its module) its input_file `filepath` parts. Without it no filepath is found.
   */
  static withCatalog(
    catalogModule: Type,
    catalog: InjectionToken<TurnCatalog>,
    library?: { module: Type; provider: InjectionToken<TurnLibrary> },
  ): DynamicModule {
    return {
      module: TurnsModule,
      imports: [catalogModule, ...(library ? [library.module] : [])],
      providers: [
        { provide: TURN_CATALOG, useExisting: catalog },
        library
          ? { provide: TURN_LIBRARY, useExisting: library.provider }
          : { provide: TURN_LIBRARY, useValue: NO_LIBRARY },
      ],
    };
  }

  constructor(
    private readonly reaper: TurnReaper,
    private readonly starter: TurnStarter,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.reaper.start(this.config.redis.url === undefined);
  }

  async onModuleDestroy(): Promise<void> {
    this.starter.close();
    await this.reaper.stop();
  }
}
