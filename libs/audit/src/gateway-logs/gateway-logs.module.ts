import { Module } from '@nestjs/common';
import { GatewayLogsController } from './gateway-logs.controller';
import { GatewayLogsRepository } from './gateway-logs.repository';

/** `GET /v1/admin/llm-gateway-logs` (logs:read) over the table the gateway writes. */
@Module({
  controllers: [GatewayLogsController],
  providers: [GatewayLogsRepository],
})
export class GatewayLogsModule {}
