import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SIGNALS, type Signals } from '@fed/bus';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { DataSource } from 'typeorm';
import { TenantEntity } from '../tenants/tenant.entity';
import { type SessionInvalidations, signalSessionInvalidations } from './session-invalidations';
import { UserEntity } from './user.entity';
import { UserRepository } from './user.repository';
import { UsersService } from './users.service';

/** Without `invalidations` (a command without a bus) access tokens keep working until they expire. */
export function usersServiceFor(
  dataSource: DataSource,
  config: Pick<ServiceConfig, 'http'>,
  invalidations?: SessionInvalidations,
): UsersService {
  return new UsersService(
    new UserRepository(dataSource),
    { defaultTenantEndpoint: config.http.publicUrl },
    invalidations,
  );
}

@Module({
  imports: [TypeOrmModule.forFeature([UserEntity, TenantEntity])],
  providers: [
    UserRepository,
    {
      provide: UsersService,
      inject: [DataSource, SERVICE_CONFIG, SIGNALS],
      useFactory: (dataSource: DataSource, config: ServiceConfig, signals: Signals) =>
        usersServiceFor(dataSource, config, signalSessionInvalidations(signals, config)),
    },
  ],
  exports: [UserRepository, UsersService],
})
export class UsersModule {}
