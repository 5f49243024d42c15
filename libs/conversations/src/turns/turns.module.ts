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
import { TurnReaper } from './turn-reaper';
import { TurnsRepository } from './turns.repository';
import { TurnsService } from './turns.service';

/**
 * `POST /v1/chat/completions`, reconnect and cancel: admission, SSE relay, reaper (docs/chat.md).
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
      provide: TurnsService,
      inject: [
        TurnsRepository,
        DataSource,
        TURN_CATALOG,
        RUN_QUEUE,
        RUN_STREAM,
        SIGNALS,
        SERVICE_CONFIG,
        LOGGER,
        SHUTDOWN_SIGNAL,
      ],
      useFactory: (
        repository: TurnsRepository,
        dataSource: DataSource,
        catalog: TurnCatalog,
        runQueue: RunQueue,
        runStream: RunStream,
        signals: Signals,
        config: ServiceConfig,
        logger: Logger,
        shutdown: AbortSignal,
      ) =>
        new TurnsService({
          repository,
          conversations: new ConversationsRepository(dataSource),
          catalog,
          runQueue,
          runStream,
          signals,
          config,
          logger,
          shutdown,
        }),
    },
    {
      provide: TurnReaper,
      inject: [TurnsRepository, TurnsService, SERVICE_CONFIG, LOGGER],
      useFactory: (repository: TurnsRepository, turns: TurnsService, config: ServiceConfig, logger: Logger) =>
        new TurnReaper(repository, turns, config, logger),
    },
  ],
})
export class TurnsModule implements OnApplicationBootstrap, OnModuleDestroy {
  /** `catalog` (a provider of `catalogModule`) answers the chat request's persona, playbook and skill checks. */
  static withCatalog(catalogModule: Type, catalog: InjectionToken<TurnCatalog>): DynamicModule {
    return {
      module: TurnsModule,
      imports: [catalogModule],
      providers: [{ provide: TURN_CATALOG, useExisting: catalog }],
    };
  }

  constructor(
    private readonly reaper: TurnReaper,
    private readonly turns: TurnsService,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.reaper.start(this.config.redis.url === undefined);
  }

  async onModuleDestroy(): Promise<void> {
    this.turns.close();
    await this.reaper.stop();
  }
}
