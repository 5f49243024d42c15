import { type DynamicModule, Module, type Type } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthModule } from '@fed/auth';
import { type Bus, COUNTERS, RUN_QUEUE, RUN_STREAM, SIGNALS } from '@fed/bus';
import { type HostConfig, SERVICE_CONFIG } from '@fed/config';
import { HEALTH, type Health, LOGGER, type Logger, METRICS, type Metrics } from '@fed/observability';
import { dataSourceOptions } from '@fed/persistence';
import { BLOB_STORE, type BlobStore } from '@fed/storage';
import { AccessLog } from '../access-log/access-log';
import { AccessLogFlusher } from '../access-log/access-log.flusher';
import { ApiExceptionFilter } from '../errors/api-exception.filter';
import { BODY_ERROR_FORMATS, BodyErrorFormats } from '../errors/body-error-formats';
import { FAST_ROUTES, type FastRoutes } from '../http/fast-routes';
import { RequestValidationPipe } from '../validation/request-validation.pipe';
import { PostgresReadiness } from './postgres-readiness';
import { SHUTDOWN_DRAINS, type ShutdownDrains } from './shutdown-drains';
import { SHUTDOWN_SIGNAL } from './shutdown-signal';

export interface ServiceHostOptions {
  config: HostConfig & { database: { url: string } };
  logger: Logger;
  metrics: Metrics;
  health: Health;
  bus: Bus;
  /** BLOB_STORE is provided only for apps with a `storage` section. */
  blobStore?: BlobStore;
  shutdownSignal: AbortSignal;
  /** Run before the HTTP drain. */
  shutdownDrains: ShutdownDrains;
  /** Served ahead of the framework; features add theirs while the app initialises. */
  fastRoutes: FastRoutes;
  accessLog?: AccessLog;
  /** `platform` passes every app's. */
  features: Type[];
}

/** What every deployable shares around its features. */
@Module({})
export class ServiceHostModule {
  static forRoot(options: ServiceHostOptions): DynamicModule {
    const { config, logger, metrics, health, bus, blobStore, shutdownSignal, shutdownDrains, fastRoutes, accessLog } =
      options;
    const bodyFormats = new BodyErrorFormats();
    const shared = [
      { provide: BODY_ERROR_FORMATS, useValue: bodyFormats },
      { provide: SERVICE_CONFIG, useValue: config },
      { provide: LOGGER, useValue: logger },
      { provide: METRICS, useValue: metrics },
      { provide: HEALTH, useValue: health },
      { provide: RUN_QUEUE, useValue: bus.runQueue },
      { provide: RUN_STREAM, useValue: bus.runStream },
      { provide: SIGNALS, useValue: bus.signals },
      { provide: COUNTERS, useValue: bus.counters },
      { provide: SHUTDOWN_SIGNAL, useValue: shutdownSignal },
      { provide: SHUTDOWN_DRAINS, useValue: shutdownDrains },
      { provide: FAST_ROUTES, useValue: fastRoutes },
      ...(blobStore ? [{ provide: BLOB_STORE, useValue: blobStore }] : []),
      ...(accessLog ? [{ provide: AccessLog, useValue: accessLog }] : []),
    ];
    return {
      module: ServiceHostModule,
      global: true,
      imports: [
        TypeOrmModule.forRoot({
          ...dataSourceOptions({
            url: config.database.url,
            poolSize: config.database.poolSize,
            applicationName: config.app,
          }),
          autoLoadEntities: true,
          retryAttempts: 2,
          retryDelay: 1000,
        }),
        AuthModule,
        ...options.features,
      ],
      providers: [
        ...shared,
        PostgresReadiness,
        ...(accessLog ? [AccessLogFlusher] : []),
        { provide: APP_FILTER, useFactory: () => new ApiExceptionFilter(logger, bodyFormats) },
        { provide: APP_PIPE, useClass: RequestValidationPipe },
      ],
      exports: shared.map((p) => p.provide),
    };
  }
}
