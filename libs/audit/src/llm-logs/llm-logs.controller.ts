import { type AccessTokenPrincipal, CurrentPrincipal, Scopes, SaasOnly } from '@fed/auth';
import { dayRange, numberedPageEnvelope, toNumberedPageParams } from '@fed/contracts';
import { LogPageQueryDto } from '@fed/server';
import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import { type Request, type Response } from 'express';
import { DataSource } from 'typeorm';
import { LogExportQueryDto, logExportRequest, streamLogExport } from '../export/log-export';
import { LLM_LOG_EXPORT } from './llm-log-export';
import { type LlmLogList, toLlmLogResponse } from './llm-logs.dto';
import { LlmLogsRepository } from './llm-logs.repository';

@Scopes('logs:read')
@SaasOnly()
@Controller('api/v1/admin')
export class LlmLogsController {
  constructor(
    private readonly llmLogs: LlmLogsRepository,
    private readonly dataSource: DataSource,
  ) {}

  @Get('llm-logs')
  async list(
    @CurrentPrincipal() principal: AccessTokenPrincipal,
    @Query() query: LogPageQueryDto,
  ): Promise<LlmLogList> {
    const page = toNumberedPageParams(query);
    const { rows, total } = await this.llmLogs.list(
      // An admin reads their own tenant's rows; a token without a tenant (the operator's) every row.
      { tenantId: principal.tenant?.id },
      dayRange(query.from, query.to),
      page,
    );
    return { llmLogs: rows.map(toLlmLogResponse), ...numberedPageEnvelope(page, total) };
  }

  /** The range as a CSV or JSON lines file, streamed; the same rows as the list's. */
  @Get('llm-logs/export')
  async export(
    @CurrentPrincipal() principal: AccessTokenPrincipal,
    @Query() query: LogExportQueryDto,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    await streamLogExport(this.dataSource, LLM_LOG_EXPORT, logExportRequest(query, principal.tenant?.id), { req, res });
  }
}
