import { type AccessTokenPrincipal, CurrentPrincipal, Scopes, SaasOnly } from '@fed/auth';
import { dayRange, numberedPageEnvelope, toNumberedPageParams } from '@fed/contracts';
import { LogPageQueryDto } from '@fed/server';
import { Controller, Get, Query } from '@nestjs/common';
import { type GatewayLogList, toGatewayLogResponse } from './gateway-logs.dto';
import { GatewayLogsRepository } from './gateway-logs.repository';

@Scopes('logs:read')
@SaasOnly()
@Controller('api/v1/admin')
export class GatewayLogsController {
  constructor(private readonly gatewayLogs: GatewayLogsRepository) {}

  @Get('llm-gateway-logs')
  async list(
    @CurrentPrincipal() principal: AccessTokenPrincipal,
    @Query() query: LogPageQueryDto,
  ): Promise<GatewayLogList> {
    const page = toNumberedPageParams(query);
    const { rows, total } = await this.gatewayLogs.list(
      // An admin reads their own tenant's rows; a token without a tenant (the operator's) every row.
      { tenantId: principal.tenant?.id },
      dayRange(query.from, query.to),
      page,
    );
    return { llmGatewayLogs: rows.map(toGatewayLogResponse), ...numberedPageEnvelope(page, total) };
  }
}
