import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { LOGGER, type Logger } from '@fed/observability';
import { DataSource } from 'typeorm';
import { identityEntities } from '../identity.entities';
import { KeyEncryption } from '../signing-keys/key-encryption';
import { SigningKeysModule, keyEncryptionFor } from '../signing-keys/signing-keys.module';
import { IdpAccountsRepository } from './idp-accounts.repository';
import { IdpCallbackController } from './idp-callback.controller';
import { IdpCookies } from './idp-cookies';
import { SealedBox } from './sealed-box';
import { TenantIdpRepository } from './tenant-idp.repository';
import { SECRET_PURPOSE, TenantIdpsService } from './tenant-idps.service';
import { TenantSignIn } from './tenant-sign-in';
import { UpstreamClients } from './upstream-clients';
import { UpstreamSessions } from './upstream-sessions';

export type IdpSecretsConfig = Pick<ServiceConfig, 'signingKeys' | 'dataDir' | 'database'>;

/**
 * The key that seals tenants' provider secrets outside the service (realm import, platformctl):
 * KEY_ENCRYPTION_KEY, or the all-in-one key in DATA_DIR when the database is the embedded one beside
 * it. With an external database and no key there is none: a key made up here would not be the one
 * auth-service opens them with.
 */
export async function idpSecretsKeyFor(config: IdpSecretsConfig): Promise<KeyEncryption | undefined> {
  if (config.signingKeys.encryptionKey) return new KeyEncryption(config.signingKeys.encryptionKey);
  return config.database.url ? undefined : keyEncryptionFor(config);
}

/** The service on a data source, as this module and platformctl build it; without `encryption` no secret can be stored. */
export function tenantIdpsServiceFor(dataSource: DataSource, encryption?: KeyEncryption): TenantIdpsService {
  return new TenantIdpsService(
    new TenantIdpRepository(dataSource),
    encryption ? new SealedBox(encryption, SECRET_PURPOSE) : undefined,
  );
}

/** Enterprise tenants' own identity providers: the relying party, the callback, fresh userinfo. */
@Module({
  imports: [TypeOrmModule.forFeature(identityEntities), SigningKeysModule],
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
