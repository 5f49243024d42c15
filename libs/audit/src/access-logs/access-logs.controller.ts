import { type AccessTokenPrincipal, CurrentPrincipal, Scopes, SaasOnly } from '@fed/auth';
import { dayRange, numberedPageEnvelope, toNumberedPageParams } from '@fed/contracts';
import { LogPageQueryDto } from '@fed/server';
import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import { type Request, type Response } from 'express';
import { DataSource } from 'typeorm';
import { LogExportQueryDto, logExportRequest, streamLogExport } from '../export/log-export';
import { ACCESS_LOG_EXPORT } from './access-log-export';
import { type AccessLogList, toAccessLogResponse } from './access-logs.dto';
import { AccessLogsRepository } from './access-logs.repository';

@Scopes('logs:read')
@SaasOnly()
@Controller('api/v1/admin')
export class AccessLogsController {
  constructor(
    private readonly accessLogs: AccessLogsRepository,
    private readonly dataSource: DataSource,
  ) {}

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

  /** The range as a CSV or JSON lines file, streamed; the same rows as the list's. */
  @Get('access-logs/export')
  async export(
    @CurrentPrincipal() principal: AccessTokenPrincipal,
    @Query() query: LogExportQueryDto,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    await streamLogExport(this.dataSource, ACCESS_LOG_EXPORT, logExportRequest(query, principal.tenant?.id), {
      req,
      res,
    });
  }
}
