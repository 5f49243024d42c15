import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { PersonasAdminController, PlaybooksAdminController, SkillsAdminController } from './catalog-admin.controller';
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

/** `/api/v1/admin/{personas,playbooks,skills}` (admin-service): the service platformctl uses. */
@Module({
  imports: [TypeOrmModule.forFeature(catalogEntities)],
  controllers: [PersonasAdminController, PlaybooksAdminController, SkillsAdminController],
  providers: [{ provide: CatalogAdminService, inject: [DataSource], useFactory: catalogAdminServiceFor }],
})
export class CatalogAdminModule {}

/** The administrator's service on a data source, as platformctl and the tests build it. */
export function catalogAdminServiceFor(dataSource: DataSource): CatalogAdminService {
  return new CatalogAdminService(new CatalogRepository(dataSource));
}
