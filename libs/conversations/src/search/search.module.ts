import { Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { SearchController } from './search.controller';
import { SearchRepository } from './search.repository';
import { SearchService } from './search.service';

/** Message search of document 2 (`GET /v1/search`). */
@Module({
  controllers: [SearchController],
  providers: [
    {
      provide: SearchService,
      inject: [DataSource],
      useFactory: (dataSource: DataSource) => new SearchService(new SearchRepository(dataSource)),
    },
  ],
})
export class SearchModule {}
