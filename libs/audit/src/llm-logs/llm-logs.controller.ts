import { type AccessTokenPrincipal, CurrentPrincipal, Scopes, SaasOnly } from '@fed/auth';
import { dayRange, numberedPageEnvelope, toNumberedPageParams } from '@fed/contracts';
import { LogPageQueryDto } from '@fed/server';
import { Controller, Get, Query } from '@nestjs/common';
import { type LlmLogList, toLlmLogResponse } from './llm-logs.dto';
import { LlmLogsRepository } from './llm-logs.repository';

@Scopes('logs:read')
@SaasOnly()
@Controller('api/v1/admin')
export class LlmLogsController {
  constructor(private readonly llmLogs: LlmLogsRepository) {}

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
}
