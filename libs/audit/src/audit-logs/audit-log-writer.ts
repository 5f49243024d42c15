import { type DataSource } from 'typeorm';
import { BatchedLogWriter, type DropReason, type LogTable } from '@fed/persistence';

/** A row as the table holds it (snake_case columns), ready for `json_populate_recordset`. */
export interface AuditLogRecord {
  id: string;
  resource: string;
  action: string;
  meta: Record<string, unknown> | null;
  user_id: string;
  user_email: string | null;
  ip_address: string | null;
  user_agent: string | null;
  created_at: string;
  tenant_id: string | null;
}

const TABLE: LogTable = {
  name: '"audit"."audit_logs"',
  columns: [
    'id',
    'resource',
    'action',
    'meta',
    'user_id',
    'user_email',
    'ip_address',
    'user_agent',
    'created_at',
    'tenant_id',
  ],
};

export interface AuditLogWriterOptions {
  flushMs: number;
  /** Rows held while the database cannot take them; beyond, the oldest are dropped and counted. */
  maxBufferedRows?: number;
  onError?: (error: unknown, bufferedRows: number) => void;
  onDropped?: (rows: number, reason: DropReason) => void;
}

/** Batched off the admin call's path, so a slow database never slows it; a crash loses at most one tick of rows. */
export class AuditLogWriter extends BatchedLogWriter<AuditLogRecord> {
  constructor(dataSource: Pick<DataSource, 'query'>, options: AuditLogWriterOptions) {
    super(dataSource, TABLE, { ...options, maxBufferedRows: options.maxBufferedRows ?? 50_000 });
  }
}
