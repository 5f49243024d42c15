import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SIGNALS, type Signals } from '@fed/bus';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { DataSource } from 'typeorm';
import { TenantEntity } from '../tenants/tenant.entity';
import { ClientEntity } from './client.entity';
import { ClientRepository } from './client.repository';
import { type ClientTokenRevocations, signalClientTokenRevocations } from './client-token-revocations';
import { ClientsService } from './clients.service';
import { FIRST_PARTY_WEB_CLIENT_ID } from './first-party-web-client';

/**
 * The service on a data source, as this module and platformctl build it. Without `revocations` (a command
 * without a bus) the access tokens of a client disabled or deleted keep working until they expire.
 */
export function clientsServiceFor(
  dataSource: DataSource,
  config: Pick<ServiceConfig, 'http'>,
  revocations?: ClientTokenRevocations,
): ClientsService {
  return new ClientsService(new ClientRepository(dataSource), {
    defaultTenantEndpoint: config.http.publicUrl,
    protectedClientIds: [FIRST_PARTY_WEB_CLIENT_ID],
    revocations,
  });
}

@Module({
  imports: [TypeOrmModule.forFeature([ClientEntity, TenantEntity])],
  providers: [
    ClientRepository,
    {
      provide: ClientsService,
      inject: [DataSource, SERVICE_CONFIG, SIGNALS],
      useFactory: (dataSource: DataSource, config: ServiceConfig, signals: Signals) =>
        clientsServiceFor(dataSource, config, signalClientTokenRevocations(signals, config)),
    },
  ],
  exports: [ClientRepository, ClientsService],
})
export class ClientsModule {}
