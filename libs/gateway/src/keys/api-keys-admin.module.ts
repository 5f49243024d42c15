import { SIGNALS, type Signals } from '@fed/bus';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { LOGGER, type Logger } from '@fed/observability';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { signalApiKeyChanges } from './api-key-changes';
import { ApiKeyEntity } from './api-key.entity';
import { ApiKeysController } from './api-keys.controller';
import { ApiKeysService, apiKeysServiceFor } from './api-keys.service';

/** `/api/v1/admin/api-keys` (platform:manage; admin-service): every change is announced to running gateways. */
@Module({
  imports: [TypeOrmModule.forFeature([ApiKeyEntity])],
  controllers: [ApiKeysController],
  providers: [
    {
      provide: ApiKeysService,
      inject: [DataSource, SERVICE_CONFIG, SIGNALS, LOGGER],
      useFactory: (dataSource: DataSource, config: ServiceConfig, signals: Signals, logger: Logger) =>
        apiKeysServiceFor(dataSource, {
          keyPrefix: config.gateway.keyPrefix,
          changes: signalApiKeyChanges(signals, (error, keyId) =>
            logger.warn(
              { err: error, keyId },
              'running gateways could not be told of a key change; they reread the key within 30 s',
            ),
          ),
        }),
    },
  ],
})
export class ApiKeysAdminModule {}
