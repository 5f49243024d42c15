import { Module } from '@nestjs/common';
import { SIGNALS, type Signals } from '@fed/bus';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { KeyEncryption } from './key-encryption';
import { SigningKeyEntity } from './signing-key.entity';
import { SigningKeysAdminController } from './signing-keys-admin.controller';
import { SigningKeyAdministration, signalSigningKeyRevocations } from './signing-keys-admin.service';
import { keyEncryptionFor, signingKeysServiceFor } from './signing-keys.module';

/**
 * The key auth-service seals with: KEY_ENCRYPTION_KEY, or in the all-in-one platform the key kept in DATA_DIR.
 * Another service without the variable gets none (a key made up here would seal what auth-service cannot open).
 */
export async function operatorKeyEncryptionFor(
  config: Pick<ServiceConfig, 'app' | 'signingKeys' | 'dataDir'>,
): Promise<KeyEncryption | undefined> {
  if (config.signingKeys.encryptionKey) return new KeyEncryption(config.signingKeys.encryptionKey);
  return config.app === 'platform' ? keyEncryptionFor(config) : undefined;
}

/** A holder: a provider's value is never left undefined. */
export interface OperatorKeyEncryption {
  encryption: KeyEncryption | undefined;
}

export const OPERATOR_KEY_ENCRYPTION = Symbol('fed.identity.operatorKeyEncryption');

/** The key for the admin routes that seal: signing keys, tenants' client secrets. */
@Module({
  providers: [
    {
      provide: OPERATOR_KEY_ENCRYPTION,
      inject: [SERVICE_CONFIG],
      useFactory: async (config: ServiceConfig): Promise<OperatorKeyEncryption> => ({
        encryption: await operatorKeyEncryptionFor(config),
      }),
    },
  ],
  exports: [OPERATOR_KEY_ENCRYPTION],
})
export class OperatorKeyEncryptionModule {}

/**
 * `/api/v1/admin/signing-keys` (admin-service). Not SigningKeysModule: that one makes a key at start and serves the
 * JWKS, which only auth-service does.
 */
@Module({
  imports: [TypeOrmModule.forFeature([SigningKeyEntity]), OperatorKeyEncryptionModule],
  controllers: [SigningKeysAdminController],
  providers: [
    {
      provide: SigningKeyAdministration,
      inject: [DataSource, OPERATOR_KEY_ENCRYPTION, SERVICE_CONFIG, SIGNALS],
      useFactory: (
        dataSource: DataSource,
        { encryption }: OperatorKeyEncryption,
        config: ServiceConfig,
        signals: Signals,
      ) =>
        new SigningKeyAdministration(
          signingKeysServiceFor(dataSource, encryption, config),
          signalSigningKeyRevocations(signals),
        ),
    },
  ],
})
export class SigningKeysAdminModule {}
