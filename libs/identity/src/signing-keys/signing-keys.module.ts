import {
  Inject,
  Injectable,
  Module,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
  type OnModuleInit,
} from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SIGNALS, type Signals, type Subscription } from '@fed/bus';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { LOGGER, type Logger } from '@fed/observability';
import { DataSource } from 'typeorm';
import { JwksController } from './jwks.controller';
import { KeyEncryption } from './key-encryption';
import { keyEncryptionKeyFromDataDir } from './key-encryption-key.file';
import { PublishedJwks } from './published-jwks';
import { SigningKeyEntity } from './signing-key.entity';
import { SigningKeyRepository } from './signing-key.repository';
import { SigningKeysService } from './signing-keys.service';

/** The encryption key: configured, or (all-in-one only: auth-service requires it) kept in DATA_DIR. */
export async function keyEncryptionFor(config: Pick<ServiceConfig, 'signingKeys' | 'dataDir'>): Promise<KeyEncryption> {
  return new KeyEncryption(config.signingKeys.encryptionKey ?? (await keyEncryptionKeyFromDataDir(config.dataDir)));
}

export function signingKeysServiceFor(
  dataSource: DataSource,
  encryption: KeyEncryption | undefined,
  config: Pick<ServiceConfig, 'signingKeys' | 'auth'>,
): SigningKeysService {
  return new SigningKeysService(new SigningKeyRepository(dataSource), encryption, {
    tokenTtlSeconds: config.signingKeys.tokenTtlSeconds,
    clockSkewSeconds: config.auth.clockSkewSeconds,
  });
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

/** A key revoked by another process leaves this instance's JWKS and signing key at once, not after their cache time. */
@Injectable()
class ForgetRevokedKeys implements OnModuleInit, OnModuleDestroy {
  private subscription?: Subscription;

  constructor(
    private readonly keys: SigningKeysService,
    private readonly jwks: PublishedJwks,
    @Inject(SIGNALS) private readonly signals: Signals,
  ) {}

  async onModuleInit(): Promise<void> {
    this.subscription = await this.signals.subscribe('auth.signing-key-revoked', () => {
      this.jwks.invalidate();
      this.keys.forgetActiveKey();
    });
  }

  async onModuleDestroy(): Promise<void> {
    await this.subscription?.unsubscribe();
  }
}

@Module({
  imports: [TypeOrmModule.forFeature([SigningKeyEntity])],
  controllers: [JwksController],
  providers: [
    { provide: KeyEncryption, inject: [SERVICE_CONFIG], useFactory: keyEncryptionFor },
    {
      provide: SigningKeysService,
      inject: [DataSource, KeyEncryption, SERVICE_CONFIG],
      useFactory: signingKeysServiceFor,
    },
    {
      provide: PublishedJwks,
      inject: [SigningKeysService],
      useFactory: (keys: SigningKeysService) => new PublishedJwks(keys),
    },
    EnsureSigningKey,
    ForgetRevokedKeys,
  ],
  exports: [SigningKeysService, KeyEncryption, PublishedJwks],
})
export class SigningKeysModule {}
