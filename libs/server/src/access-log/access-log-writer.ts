import { BatchedLogWriter, type BatchedLogWriterOptions, type LogTable } from '@fed/persistence';
import { type DataSource } from 'typeorm';

/** As `audit.access_logs` takes it (`source_namespace` stays null). */
export interface AccessLogRecord {
  id: string;
  created_at: string;
  service: string;
  source_ip: string | null;
  method: string | null;
  host: string | null;
  path: string | null;
  user_agent: string | null;
  status_code: number;
  duration_ms: number;
  authz_result: string | null;
  authz_reason: string | null;
  tenant_id: string | null;
}

const TABLE: LogTable = {
  name: '"audit"."access_logs"',
  columns: [
    'id',
    'created_at',
    'service',
    'source_ip',
    'method',
    'host',
    'path',
    'user_agent',
    'status_code',
    'duration_ms',
    'authz_result',
    'authz_reason',
    'tenant_id',
  ] satisfies (keyof AccessLogRecord)[],
};

/** Batched off the request path. */
export class AccessLogWriter extends BatchedLogWriter<AccessLogRecord> {
  constructor(dataSource: Pick<DataSource, 'query'>, options: BatchedLogWriterOptions) {
    super(dataSource, TABLE, options);
  }
}
