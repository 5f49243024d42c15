import { type AccessTokenPrincipal, CurrentPrincipal, Scopes, SaasOnly } from '@fed/auth';
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
  async list(
    @CurrentPrincipal() principal: AccessTokenPrincipal,
    @Query() query: LogPageQueryDto,
  ): Promise<AccessLogList> {
    const page = toNumberedPageParams(query);
    const { rows, total } = await this.accessLogs.list(
      // An admin reads their own tenant's rows; a token without a tenant (the operator's) every row.
      { tenantId: principal.tenant?.id },
      dayRange(query.from, query.to),
      page,
    );
    return { accessLogs: rows.map(toAccessLogResponse), ...numberedPageEnvelope(page, total) };
  }
}
