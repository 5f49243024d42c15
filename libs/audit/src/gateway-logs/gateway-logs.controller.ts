import { type AccessTokenPrincipal, CurrentPrincipal, Scopes, SaasOnly } from '@fed/auth';
import { dayRange, numberedPageEnvelope, toNumberedPageParams } from '@fed/contracts';
import { LogPageQueryDto } from '@fed/server';
import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import { type Request, type Response } from 'express';
import { DataSource } from 'typeorm';
import { GATEWAY_LOG_EXPORT } from '../export/gateway-log-export';
import { LogExportQueryDto, logExportRequest, streamLogExport } from '../export/log-export';
import { type GatewayLogList, toGatewayLogResponse } from './gateway-logs.dto';
import { GatewayLogsRepository } from './gateway-logs.repository';

@Scopes('logs:read')
@SaasOnly()
@Controller('api/v1/admin')
export class GatewayLogsController {
  constructor(
    private readonly gatewayLogs: GatewayLogsRepository,
    private readonly dataSource: DataSource,
  ) {}

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

  /** The range as a CSV or JSON lines file, streamed; the same rows as the list's. */
  @Get('llm-gateway-logs/export')
  async export(
    @CurrentPrincipal() principal: AccessTokenPrincipal,
    @Query() query: LogExportQueryDto,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    await streamLogExport(this.dataSource, GATEWAY_LOG_EXPORT, logExportRequest(query, principal.tenant?.id), {
      req,
      res,
    });
  }
}
