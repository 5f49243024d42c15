import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import {
  GatewayUsageCallerDayEntity,
  GatewayUsageDayEntity,
  GatewayUsageModelDayEntity,
} from './gateway-usage-day.entity';
import { GatewayUsageController } from './gateway-usage.controller';
import { GatewayUsageRepository } from './gateway-usage.repository';
import { GatewayUsageService } from './gateway-usage.service';

/** `GET /v1/admin/gateway-usage` (logs:read, a tenant's own; platform:manage, every tenant's). */
@Module({
  imports: [TypeOrmModule.forFeature([GatewayUsageDayEntity, GatewayUsageModelDayEntity, GatewayUsageCallerDayEntity])],
  controllers: [GatewayUsageController],
  providers: [GatewayUsageRepository, GatewayUsageService],
  exports: [GatewayUsageService],
})
export class GatewayUsageModule {}
