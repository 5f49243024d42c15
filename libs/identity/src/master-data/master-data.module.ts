import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { JobTypesController, OrganizationsController } from './master-data.controller';
import { JobTypeEntity, OrganizationEntity } from './master-data.entity';
import { MasterDataRepository } from './master-data.repository';
import { MasterDataService } from './master-data.service';

/** The service on a data source, as this module and platformctl build it. */
export function masterDataServiceFor(dataSource: DataSource): MasterDataService {
  return new MasterDataService(new MasterDataRepository(dataSource));
}

/** Organizations and job types with their admin routes (`master:manage`). */
@Module({
  imports: [TypeOrmModule.forFeature([OrganizationEntity, JobTypeEntity])],
  controllers: [OrganizationsController, JobTypesController],
  providers: [{ provide: MasterDataService, inject: [DataSource], useFactory: masterDataServiceFor }],
  exports: [MasterDataService],
})
export class MasterDataModule {}
