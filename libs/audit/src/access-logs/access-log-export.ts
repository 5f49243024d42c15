import { type LogExportSource } from '../export/log-export';
import { type AccessLogResponse, toAccessLogResponse } from './access-logs.dto';

/** The access log's export: the list's record, its fields in the list's order. */
export const ACCESS_LOG_EXPORT: LogExportSource<AccessLogResponse> = {
  table: '"audit"."access_logs"',
  name: 'access-logs',
  fields: [
    'accessLogId',
    'timestamp',
    'service',
    'sourceNamespace',
    'sourceIp',
    'method',
    'host',
    'path',
    'userAgent',
    'statusCode',
    'durationMs',
    'authzResult',
    'authzReason',
    'tenantId',
  ],
  toRecord: toAccessLogResponse,
};
