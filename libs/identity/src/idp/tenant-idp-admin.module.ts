import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { DataSource } from 'typeorm';
import {
  OPERATOR_KEY_ENCRYPTION,
  OperatorKeyEncryptionModule,
  type OperatorKeyEncryption,
} from '../signing-keys/signing-keys-admin.module';
import { TenantEntity } from '../tenants/tenant.entity';
import { TenantIdpAdminController } from './tenant-idp-admin.controller';
import { TenantIdpCheck } from './tenant-idp-check';
import { TenantIdpDomainEntity, TenantIdpEntity } from './tenant-idp.entity';
import { tenantIdpsServiceFor } from './tenant-idps.factory';
import { TenantIdpsService } from './tenant-idps.service';

/** `/api/v1/admin/tenants/:tenantId/identity-provider` (admin-service). */
@Module({
  imports: [
    TypeOrmModule.forFeature([TenantEntity, TenantIdpEntity, TenantIdpDomainEntity]),
    // The signing keys' key seals the client secrets too (under a key derived for them).
    OperatorKeyEncryptionModule,
  ],
  controllers: [TenantIdpAdminController],
  providers: [
    {
      provide: TenantIdpsService,
      inject: [DataSource, OPERATOR_KEY_ENCRYPTION],
      useFactory: (dataSource: DataSource, { encryption }: OperatorKeyEncryption) =>
        tenantIdpsServiceFor(dataSource, encryption),
    },
    {
      provide: TenantIdpCheck,
      inject: [TenantIdpsService, SERVICE_CONFIG],
      useFactory: (idps: TenantIdpsService, config: ServiceConfig) => new TenantIdpCheck(idps, config.auth.authUrl),
    },
  ],
})
export class TenantIdpAdminModule {}
