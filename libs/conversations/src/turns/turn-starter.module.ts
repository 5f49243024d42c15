import { RUN_QUEUE, RUN_STREAM, type RunQueue, type RunStream, SIGNALS, type Signals } from '@fed/bus';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { LOGGER, type Logger } from '@fed/observability';
import { type DynamicModule, type InjectionToken, Module, type OnModuleDestroy, type Type } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ConversationsRepository } from '../conversations/conversations.repository';
import { conversationEntities } from '../storage';
import { TURN_CATALOG, type TurnCatalog } from './turn-catalog.port';
import { TurnFiles } from './turn-files';
import { NO_LIBRARY, TURN_LIBRARY, type TurnLibrary } from './turn-library.port';
import { TurnStarter } from './turn-starter';
import { TurnsRepository } from './turns.repository';

/** Where the turn starter finds the chat request's persona, playbook and skills, and its library files. */
export interface TurnStarterSources {
  catalogModule: Type;
  catalog: InjectionToken<TurnCatalog>;
  library?: { module: Type; provider: InjectionToken<TurnLibrary> };
}

/** The turn starter alone (docs/chat.md "The turn starter"); same-source importers share it: one starter a process. */
@Module({
  imports: [TypeOrmModule.forFeature(conversationEntities)],
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
  ],
  exports: [TurnStarter, TurnsRepository],
})
export class TurnStarterModule implements OnModuleDestroy {
  /** `catalog` checks persona, playbook and skills; `library` resolves `filepath` parts (without it none is found). */
  static withSources(sources: TurnStarterSources): DynamicModule {
    // Nest tells dynamic modules apart by object identity: the same sources must give the same object,
    // or each importer would get a starter of its own.
    const known = TurnStarterModule.built.find(({ of }) => sameSources(of, sources));
    if (known) return known.module;
    const { catalogModule, catalog, library } = sources;
    const module: DynamicModule = {
      module: TurnStarterModule,
      imports: [catalogModule, ...(library ? [library.module] : [])],
      providers: [
        { provide: TURN_CATALOG, useExisting: catalog },
        library
          ? { provide: TURN_LIBRARY, useExisting: library.provider }
          : { provide: TURN_LIBRARY, useValue: NO_LIBRARY },
      ],
    };
    TurnStarterModule.built.push({ of: sources, module });
    return module;
  }

  private static readonly built: { of: TurnStarterSources; module: DynamicModule }[] = [];

  constructor(private readonly starter: TurnStarter) {}

  onModuleDestroy(): void {
    this.starter.close();
  }
}

function sameSources(a: TurnStarterSources, b: TurnStarterSources): boolean {
  return (
    a.catalogModule === b.catalogModule &&
    a.catalog === b.catalog &&
    a.library?.module === b.library?.module &&
    a.library?.provider === b.library?.provider
  );
}
