import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { MasterDataListsController } from './master-data-lists.controller';
import { JobTypesController, OrganizationsController } from './master-data.controller';
import { JobTypeEntity, OrganizationEntity } from './master-data.entity';
import { MasterDataRepository } from './master-data.repository';
import { MasterDataService } from './master-data.service';

export function masterDataServiceFor(dataSource: DataSource): MasterDataService {
  return new MasterDataService(new MasterDataRepository(dataSource));
}

@Module({
  imports: [TypeOrmModule.forFeature([OrganizationEntity, JobTypeEntity])],
  providers: [{ provide: MasterDataService, inject: [DataSource], useFactory: masterDataServiceFor }],
  exports: [MasterDataService],
})
class MasterDataStoreModule {}

/** Organizations and job types with their admin routes (`master:manage`; admin-service). */
@Module({
  imports: [MasterDataStoreModule],
  controllers: [OrganizationsController, JobTypesController],
  exports: [MasterDataStoreModule],
})
export class MasterDataModule {}

/** The lists as users read them, `/v1/organizations` and `/v1/job-types` (chat-service). */
@Module({
  imports: [MasterDataStoreModule],
  controllers: [MasterDataListsController],
})
export class MasterDataListsModule {}
