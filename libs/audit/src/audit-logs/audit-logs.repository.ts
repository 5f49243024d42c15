import { type DayRange, type NumberedPageParams } from '@fed/contracts';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type AuditLogEntity } from './audit-log.entity';
import { type LogPage, type LogReader, type LogTable, readLogPage, tenantScope } from './log-page.query';

const AUDIT_LOGS: LogTable = { table: '"audit"."audit_logs"', log: 'audit' };
const COLUMNS = `"id", "resource", "action", "meta", "user_id" AS "userId", "user_email" AS "userEmail",
  "ip_address" AS "ipAddress", "user_agent" AS "userAgent", "created_at" AS "createdAt", "tenant_id" AS "tenantId"`;

@Injectable()
export class AuditLogsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** A page of the log as `tenantId` may see it (absent: every tenant's, and rows of none). */
  list(filter: LogReader, range: DayRange, page: NumberedPageParams): Promise<LogPage<AuditLogEntity>> {
    return readLogPage<AuditLogEntity>(
      this.dataSource,
      AUDIT_LOGS,
      COLUMNS,
      range,
      page,
      tenantScope(AUDIT_LOGS.log, filter.tenantId),
    );
  }
}
