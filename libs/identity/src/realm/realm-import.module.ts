import { Inject, Injectable, Module, type OnApplicationBootstrap } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SIGNALS, type Signals } from '@fed/bus';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { LOGGER, type Logger } from '@fed/observability';
import { DataSource } from 'typeorm';
import { type IdpSecretsConfig, idpSecretsKeyFor, tenantIdpsServiceFor } from '../idp/tenant-idps.factory';
import { identityEntities } from '../identity.entities';
import { type SessionInvalidations, signalSessionInvalidations } from '../users/session-invalidations';
import { readRealmFile } from './realm-file';
import { RealmService } from './realm.service';

type RealmConfig = Pick<ServiceConfig, 'http'> & IdpSecretsConfig;

export function realmServiceFor(
  dataSource: DataSource,
  config: RealmConfig,
  invalidations?: SessionInvalidations,
): RealmService {
  return new RealmService(dataSource, {
    defaultTenantEndpoint: config.http.publicUrl,
    invalidations,
    identityProviders: async () => tenantIdpsServiceFor(dataSource, await idpSecretsKeyFor(config)),
  });
}

/** REALM_IMPORT: idempotent, all or nothing; a bad file stops the start. */
@Injectable()
class ImportRealmAtStart implements OnApplicationBootstrap {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(SIGNALS) private readonly signals: Signals,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const file = this.config.realmImport;
    if (!file) return;
    const realm = realmServiceFor(this.dataSource, this.config, signalSessionInvalidations(this.signals, this.config));
    const report = await realm.import(await readRealmFile(file));
    const { tenants, clients, users } = report;
    this.logger.info({ file, tenants, clients, users }, 'realm imported');
    // Secrets are never logged: such a client gets one from `platformctl clients rotate-secret`.
    for (const { clientId } of report.generatedSecrets) {
      this.logger.warn(
        { clientId },
        'realm file gave this new client no secret; run `platformctl clients rotate-secret` to get one',
      );
    }
  }
}

@Module({ imports: [TypeOrmModule.forFeature(identityEntities)], providers: [ImportRealmAtStart] })
export class RealmImportModule {}
