import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { TenantEntity } from './tenant.entity';
import { TenantRepository } from './tenant.repository';
import { TenantsController } from './tenants.controller';
import { TenantsService } from './tenants.service';

export function tenantsServiceFor(dataSource: DataSource): TenantsService {
  return new TenantsService(new TenantRepository(dataSource));
}

/** `/api/v1/admin/tenants` (admin-service); platformctl builds the service with tenantsServiceFor(). */
@Module({
  imports: [TypeOrmModule.forFeature([TenantEntity])],
  controllers: [TenantsController],
  providers: [{ provide: TenantsService, inject: [DataSource], useFactory: tenantsServiceFor }],
  exports: [TenantsService],
})
export class TenantsAdminModule {}
