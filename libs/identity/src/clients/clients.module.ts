import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { DataSource } from 'typeorm';
import { TenantEntity } from '../tenants/tenant.entity';
import { ClientEntity } from './client.entity';
import { ClientRepository } from './client.repository';
import { ClientsService } from './clients.service';

/** The service on a data source, as this module and platformctl build it. */
export function clientsServiceFor(dataSource: DataSource, config: Pick<ServiceConfig, 'http'>): ClientsService {
  return new ClientsService(new ClientRepository(dataSource), { defaultTenantEndpoint: config.http.publicUrl });
}

@Module({
  imports: [TypeOrmModule.forFeature([ClientEntity, TenantEntity])],
  providers: [
    ClientRepository,
    {
      provide: ClientsService,
      inject: [DataSource, SERVICE_CONFIG],
      useFactory: clientsServiceFor,
    },
  ],
  exports: [ClientRepository, ClientsService],
})
export class ClientsModule {}
