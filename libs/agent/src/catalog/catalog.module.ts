import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { type DataSource } from 'typeorm';
import { CatalogAdminService } from './catalog-admin.service';
import { CatalogController } from './catalog.controller';
import { catalogEntities } from './catalog.entities';
import { CatalogRepository } from './catalog.repository';
import { CatalogService } from './catalog.service';

/** CatalogService without the HTTP lists: for the chat request's checks and agent-runtime's instructions. */
@Module({
  imports: [TypeOrmModule.forFeature(catalogEntities)],
  providers: [CatalogRepository, CatalogService],
  exports: [CatalogService],
})
export class CatalogStoreModule {}

/** Personas, playbooks and skills: their `GET /v1/...` lists and the chat request's checks. */
@Module({
  imports: [CatalogStoreModule],
  controllers: [CatalogController],
  exports: [CatalogStoreModule],
})
export class CatalogModule {}

/** The administrator's service on a data source, as platformctl and the tests build it. */
export function catalogAdminServiceFor(dataSource: DataSource): CatalogAdminService {
  return new CatalogAdminService(new CatalogRepository(dataSource));
}
