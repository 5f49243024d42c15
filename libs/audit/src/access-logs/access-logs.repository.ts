import { type DayRange, type NumberedPageParams } from '@fed/contracts';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type LogPage, type LogReader, type LogTable, readLogPage, tenantScope } from '../audit-logs/log-page.query';
import { type AccessLogEntity } from './access-log.entity';

const ACCESS_LOGS: LogTable = { table: '"audit"."access_logs"', log: 'access' };
const COLUMNS = `"id", "created_at" AS "createdAt", "service", "source_namespace" AS "sourceNamespace",
  "source_ip" AS "sourceIp", "method", "host", "path", "user_agent" AS "userAgent", "status_code" AS "statusCode",
  "duration_ms" AS "durationMs", "authz_result" AS "authzResult", "authz_reason" AS "authzReason", "tenant_id" AS "tenantId"`;

@Injectable()
export class AccessLogsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** A page of the log as `tenantId` may see it (absent: every tenant's, and rows of none). */
  list(filter: LogReader, range: DayRange, page: NumberedPageParams): Promise<LogPage<AccessLogEntity>> {
    return readLogPage<AccessLogEntity>(
      this.dataSource,
      ACCESS_LOGS,
      COLUMNS,
      range,
      page,
      tenantScope(ACCESS_LOGS.log, filter.tenantId),
    );
  }
}
