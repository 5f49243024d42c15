import { type LogExportSource } from '../export/log-export';
import { type AuditLogResponse, toAuditLogResponse } from './audit-logs.dto';

/** The audit log's export: the list's record, its fields in the list's order. */
export const AUDIT_LOG_EXPORT: LogExportSource<AuditLogResponse> = {
  table: '"audit"."audit_logs"',
  name: 'audit-logs',
  fields: [
    'auditLogId',
    'resource',
    'action',
    'meta',
    'userId',
    'userEmail',
    'ipAddress',
    'userAgent',
    'createdAt',
    'tenantId',
  ],
  toRecord: toAuditLogResponse,
};
