import { Module } from '@nestjs/common';
import { AccessLogsController } from './access-logs.controller';
import { AccessLogsRepository } from './access-logs.repository';

/** `GET /v1/admin/access-logs` (logs:read) over the table every service's host writes. */
@Module({
  controllers: [AccessLogsController],
  providers: [AccessLogsRepository],
  exports: [AccessLogsRepository],
})
export class AccessLogsModule {}
