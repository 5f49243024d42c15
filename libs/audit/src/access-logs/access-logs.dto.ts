import { type NumberedPageEnvelope } from '@fed/contracts';
import { type AccessLogEntity } from './access-log.entity';

/** Spec document 3, "Access log", plus `accessLogId` and `service`. */
export interface AccessLogResponse {
  accessLogId: string;
  timestamp: string;
  service: string | null;
  sourceNamespace: string | null;
  sourceIp: string | null;
  method: string | null;
  host: string | null;
  path: string | null;
  userAgent: string | null;
  statusCode: number | null;
  durationMs: number | null;
  authzResult: string | null;
  authzReason: string | null;
  /** Whose row it is (null: no tenant's; the operator alone reads those). */
  tenantId: string | null;
}

export interface AccessLogList extends NumberedPageEnvelope {
  accessLogs: AccessLogResponse[];
}

export function toAccessLogResponse(row: AccessLogEntity): AccessLogResponse {
  return {
    accessLogId: row.id,
    timestamp: new Date(row.createdAt).toISOString(),
    service: row.service,
    sourceNamespace: row.sourceNamespace,
    sourceIp: row.sourceIp,
    method: row.method,
    host: row.host,
    path: row.path,
    userAgent: row.userAgent,
    statusCode: row.statusCode,
    durationMs: row.durationMs,
    authzResult: row.authzResult,
    authzReason: row.authzReason,
    tenantId: row.tenantId ?? null,
  };
}
