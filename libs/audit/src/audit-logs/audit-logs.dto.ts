import { type NumberedPageEnvelope } from '@fed/contracts';
import { type AuditLogEntity } from './audit-log.entity';

/** An audit log record (spec document 3, "Audit log"). */
export interface AuditLogResponse {
  auditLogId: string;
  resource: string;
  action: string;
  meta: Record<string, unknown> | null;
  userId: string;
  userEmail: string | null;
  ipAddress: string | null;
  userAgent: string | null;
  createdAt: string;
  /** Whose row it is (null: no tenant's; the operator alone reads those). */
  tenantId: string | null;
}

export interface AuditLogList extends NumberedPageEnvelope {
  auditLogs: AuditLogResponse[];
}

export function toAuditLogResponse(row: AuditLogEntity): AuditLogResponse {
  return {
    auditLogId: row.id,
    resource: row.resource,
    action: row.action,
    meta: row.meta ?? null,
    userId: row.userId,
    userEmail: row.userEmail,
    ipAddress: row.ipAddress,
    userAgent: row.userAgent,
    createdAt: new Date(row.createdAt).toISOString(),
    tenantId: row.tenantId ?? null,
  };
}
