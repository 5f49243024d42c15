import { type ServiceConfig } from '@fed/config';
import { type DataSource } from 'typeorm';
import { KeyEncryption } from '../signing-keys/key-encryption';
import { keyEncryptionFor } from '../signing-keys/signing-keys.module';
import { SealedBox } from './sealed-box';
import { TenantIdpRepository } from './tenant-idp.repository';
import { SECRET_PURPOSE, TenantIdpsService } from './tenant-idps.service';

export type IdpSecretsConfig = Pick<ServiceConfig, 'signingKeys' | 'dataDir' | 'database'>;

/**
 * KEY_ENCRYPTION_KEY, or the all-in-one key in DATA_DIR beside an embedded database. With an external database
 * and no key, none: a key made up here would not be the one auth-service opens the secrets with.
 */
export async function idpSecretsKeyFor(config: IdpSecretsConfig): Promise<KeyEncryption | undefined> {
  if (config.signingKeys.encryptionKey) return new KeyEncryption(config.signingKeys.encryptionKey);
  return config.database.url ? undefined : keyEncryptionFor(config);
}

/** Without `encryption` no secret can be stored. */
export function tenantIdpsServiceFor(dataSource: DataSource, encryption?: KeyEncryption): TenantIdpsService {
  return new TenantIdpsService(
    new TenantIdpRepository(dataSource),
    encryption ? new SealedBox(encryption, SECRET_PURPOSE) : undefined,
  );
}
