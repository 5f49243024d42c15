import { type AccessTokenPrincipal, CurrentPrincipal, Scopes, SaasOnly } from '@fed/auth';
import { dayRange, numberedPageEnvelope, toNumberedPageParams } from '@fed/contracts';
import { LogPageQueryDto } from '@fed/server';
import { Controller, Get, Query } from '@nestjs/common';
import { type AuditLogList, toAuditLogResponse } from './audit-logs.dto';
import { AuditLogsRepository } from './audit-logs.repository';

@Scopes('logs:read')
@SaasOnly()
@Controller('api/v1/admin')
export class AuditLogsController {
  constructor(private readonly auditLogs: AuditLogsRepository) {}

  @Get('audit-logs')
  async list(
    @CurrentPrincipal() principal: AccessTokenPrincipal,
    @Query() query: LogPageQueryDto,
  ): Promise<AuditLogList> {
    const page = toNumberedPageParams(query);
    const { rows, total } = await this.auditLogs.list(
      // An admin reads their own tenant's rows; a token without a tenant (the operator's) every row.
      { tenantId: principal.tenant?.id },
      dayRange(query.from, query.to),
      page,
    );
    return { auditLogs: rows.map(toAuditLogResponse), ...numberedPageEnvelope(page, total) };
  }
}
