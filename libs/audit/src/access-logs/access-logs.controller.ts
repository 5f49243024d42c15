import { Scopes, SaasOnly } from '@fed/auth';
import { dayRange, numberedPageEnvelope, toNumberedPageParams } from '@fed/contracts';
import { LogPageQueryDto } from '@fed/server';
import { Controller, Get, Query } from '@nestjs/common';
import { type AccessLogList, toAccessLogResponse } from './access-logs.dto';
import { AccessLogsRepository } from './access-logs.repository';

@Scopes('logs:read')
@SaasOnly()
@Controller('api/v1/admin')
export class AccessLogsController {
  constructor(private readonly accessLogs: AccessLogsRepository) {}

  @Get('access-logs')
  async list(@Query() query: LogPageQueryDto): Promise<AccessLogList> {
    const page = toNumberedPageParams(query);
    const { rows, total } = await this.accessLogs.list(dayRange(query.from, query.to), page);
    return { accessLogs: rows.map(toAccessLogResponse), ...numberedPageEnvelope(page, total) };
  }
}
