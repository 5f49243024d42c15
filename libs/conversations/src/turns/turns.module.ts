import { RUN_STREAM, type RunStream } from '@fed/bus';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { LOGGER, type Logger, METRICS, type Metrics, OpenStreams } from '@fed/observability';
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
import { ChatController } from './chat.controller';
import { type TurnCatalog } from './turn-catalog.port';
import { type TurnLibrary } from './turn-library.port';
import { TurnReaper } from './turn-reaper';
import { TurnStarter } from './turn-starter';
import { TurnStarterModule } from './turn-starter.module';
import { TurnsRepository } from './turns.repository';
import { TurnsService } from './turns.service';

/** Chat endpoint, relay, reaper over the turn starter; the app passes the catalog (libs/agent depends on this lib). */
@Module({
  controllers: [ChatController],
  providers: [
    {
      provide: TurnsService,
      inject: [TurnStarter, RUN_STREAM, SERVICE_CONFIG, LOGGER, SHUTDOWN_SIGNAL, METRICS],
      useFactory: (
        starter: TurnStarter,
        runStream: RunStream,
        config: ServiceConfig,
        logger: Logger,
        shutdown: AbortSignal,
        metrics: Metrics,
      ) =>
        new TurnsService({ starter, runStream, config, logger, shutdown, streams: new OpenStreams(metrics, 'chat') }),
    },
    {
      provide: TurnReaper,
      inject: [TurnsRepository, TurnStarter, SERVICE_CONFIG, LOGGER],
      useFactory: (repository: TurnsRepository, starter: TurnStarter, config: ServiceConfig, logger: Logger) =>
        new TurnReaper(repository, starter, config, logger),
    },
  ],
})
export class TurnsModule implements OnApplicationBootstrap, OnModuleDestroy {
  /** `catalog` checks persona, playbook and skills; `library` resolves `filepath` parts (without it none is found). */
  static withCatalog(
    catalogModule: Type,
    catalog: InjectionToken<TurnCatalog>,
    library?: { module: Type; provider: InjectionToken<TurnLibrary> },
  ): DynamicModule {
    return {
      module: TurnsModule,
      imports: [TurnStarterModule.withSources({ catalogModule, catalog, ...(library ? { library } : {}) })],
    };
  }

  constructor(
    private readonly reaper: TurnReaper,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.reaper.start(this.config.redis.url === undefined);
  }

  async onModuleDestroy(): Promise<void> {
    await this.reaper.stop();
  }
}
