import { Inject, Injectable, Module, type OnApplicationBootstrap } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { LOGGER, type Logger } from '@fed/observability';
import { JwksController } from './jwks.controller';
import { KeyEncryption } from './key-encryption';
import { keyEncryptionKeyFromDataDir } from './key-encryption-key.file';
import { PublishedJwks } from './published-jwks';
import { SigningKeyEntity } from './signing-key.entity';
import { SigningKeyRepository } from './signing-key.repository';
import { SigningKeysService } from './signing-keys.service';

/** The encryption key: configured, or (all-in-one only: auth-service requires it) kept in DATA_DIR. */
export async function keyEncryptionFor(config: ServiceConfig): Promise<KeyEncryption> {
  return new KeyEncryption(config.signingKeys.encryptionKey ?? (await keyEncryptionKeyFromDataDir(config.dataDir)));
}

@Injectable()
class EnsureSigningKey implements OnApplicationBootstrap {
  constructor(
    private readonly keys: SigningKeysService,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const kid = await this.keys.ensureSigningKey();
    this.logger.info({ kid }, 'signing key ready');
  }
}

@Module({
  imports: [TypeOrmModule.forFeature([SigningKeyEntity])],
  controllers: [JwksController],
  providers: [
    SigningKeyRepository,
    { provide: KeyEncryption, inject: [SERVICE_CONFIG], useFactory: keyEncryptionFor },
    {
      provide: SigningKeysService,
      inject: [SigningKeyRepository, KeyEncryption, SERVICE_CONFIG],
      useFactory: (repository: SigningKeyRepository, encryption: KeyEncryption, config: ServiceConfig) =>
        new SigningKeysService(repository, encryption, {
          tokenTtlSeconds: config.signingKeys.tokenTtlSeconds,
          clockSkewSeconds: config.auth.clockSkewSeconds,
        }),
    },
    {
      provide: PublishedJwks,
      inject: [SigningKeysService],
      useFactory: (keys: SigningKeysService) => new PublishedJwks(keys),
    },
    EnsureSigningKey,
  ],
  exports: [SigningKeysService, KeyEncryption, PublishedJwks],
})
export class SigningKeysModule {}
