import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { LOGGER, type Logger } from '@fed/observability';
import { DataSource } from 'typeorm';
import {
  identityEntities,
  KeyEncryption,
  SigningKeysModule,
  TenantIdpRepository,
  TenantIdpsService,
  tenantIdpsServiceFor,
} from '@fed/identity/internal';
import { IdpAccountsRepository } from './idp-accounts.repository';
import { IdpCallbackController } from './idp-callback.controller';
import { IdpCookies } from './idp-cookies';
import { TenantSignIn } from './tenant-sign-in';
import { UpstreamClients } from './upstream-clients';
import { UpstreamSessions } from './upstream-sessions';
import { signInEntities } from '../sign-in.entities';

@Module({
  imports: [TypeOrmModule.forFeature([...identityEntities, ...signInEntities]), SigningKeysModule],
  controllers: [IdpCallbackController],
  providers: [
    { provide: TenantIdpRepository, inject: [DataSource], useFactory: (db: DataSource) => new TenantIdpRepository(db) },
    {
      provide: IdpAccountsRepository,
      inject: [DataSource],
      useFactory: (db: DataSource) => new IdpAccountsRepository(db),
    },
    { provide: TenantIdpsService, inject: [DataSource, KeyEncryption], useFactory: tenantIdpsServiceFor },
    { provide: UpstreamClients, useFactory: () => new UpstreamClients() },
    {
      provide: IdpCookies,
      inject: [KeyEncryption, SERVICE_CONFIG],
      useFactory: (encryption: KeyEncryption, config: ServiceConfig) =>
        new IdpCookies(encryption, new URL(config.auth.issuer).protocol === 'https:'),
    },
    {
      provide: UpstreamSessions,
      inject: [TenantIdpsService, UpstreamClients, TenantIdpRepository, IdpAccountsRepository, KeyEncryption],
      useFactory: (
        idps: TenantIdpsService,
        upstreams: UpstreamClients,
        repository: TenantIdpRepository,
        accounts: IdpAccountsRepository,
        encryption: KeyEncryption,
      ) => new UpstreamSessions(idps, upstreams, repository, accounts, encryption),
    },
    {
      provide: TenantSignIn,
      inject: [UpstreamSessions, TenantIdpRepository, IdpAccountsRepository, IdpCookies, LOGGER, SERVICE_CONFIG],
      useFactory: (
        upstream: UpstreamSessions,
        tenants: TenantIdpRepository,
        accounts: IdpAccountsRepository,
        cookies: IdpCookies,
        logger: Logger,
        config: ServiceConfig,
      ) => new TenantSignIn(upstream, tenants, accounts, cookies, logger, config.auth.authUrl),
    },
  ],
  exports: [TenantSignIn, UpstreamSessions],
})
export class IdentityProvidersModule {}
