import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { LOGGER, type Logger } from '@fed/observability';
import { Inject, Module, type OnApplicationBootstrap } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { memoryEmbeddings } from '../memory-embeddings.config';
import { MemoryQuota } from '../memory-quota';
import { MemorySearch } from '../memory-search';
import { MemoryQueryController } from './memory-query.controller';
import { MemoryQueryService } from './memory-query.service';

/** `POST /v1/admin/memory/query` (sharedmemory:query) with its monthly quota. */
@Module({
  controllers: [MemoryQueryController],
  providers: [
    {
      provide: MemorySearch,
      inject: [DataSource, SERVICE_CONFIG],
      useFactory: (dataSource: DataSource, config: ServiceConfig) =>
        new MemorySearch(dataSource, memoryEmbeddings(config.memory)),
    },
    {
      provide: MemoryQueryService,
      inject: [MemorySearch, DataSource, SERVICE_CONFIG],
      useFactory: (search: MemorySearch, dataSource: DataSource, config: ServiceConfig) =>
        new MemoryQueryService(search, new MemoryQuota(dataSource, config.memory.monthlyQueryLimit)),
    },
  ],
})
export class MemoryQueryModule implements OnApplicationBootstrap {
  constructor(
    private readonly search: MemorySearch,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  // Off the start path: the service is ready at once, and a query before the load ends waits for it.
  onApplicationBootstrap(): void {
    this.search.warm().catch((error: unknown) => this.logger.warn({ err: error }, 'shared memory index not loaded'));
  }
}
