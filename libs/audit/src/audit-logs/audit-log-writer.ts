import { type DataSource } from 'typeorm';

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
}

const COLUMNS = '"id", "resource", "action", "meta", "user_id", "user_email", "ip_address", "user_agent", "created_at"';
// Ids are made before the first attempt, so a retry after a lost answer skips the rows already written.
const INSERT = `INSERT INTO "audit"."audit_logs" (${COLUMNS})
  SELECT ${COLUMNS} FROM json_populate_recordset(NULL::"audit"."audit_logs", $1::json)
  ON CONFLICT ("id") DO NOTHING`;
const BATCH_ROWS = 500;

export interface AuditLogWriterOptions {
  flushMs: number;
  /** Rows held while the database cannot take them; beyond, the oldest are dropped and counted. */
  maxBufferedRows?: number;
  onError?: (error: unknown, bufferedRows: number) => void;
  onDropped?: (rows: number, reason: 'buffer_full' | 'refused') => void;
}

/**
 * Audit rows written in batches (one multi-row INSERT a tick), off the path of the admin call that
 * caused them: a slow or absent database never slows or fails the call. Rows wait in memory until
 * the database answers and close() writes what is left at shutdown; rows buffered when the process
 * dies without a graceful stop (a crash, SIGKILL) are lost: at most one tick's worth.
 */
export class AuditLogWriter {
  private buffer: AuditLogRecord[] = [];
  private readonly timer: NodeJS.Timeout;
  private flushing: Promise<void> | null = null;
  private failures = 0;
  private retryAt = 0;
  private dropped = 0;

  constructor(
    private readonly dataSource: Pick<DataSource, 'query'>,
    private readonly options: AuditLogWriterOptions,
  ) {
    this.timer = setInterval(() => void this.flush(), options.flushMs);
    this.timer.unref();
  }

  get pending(): number {
    return this.buffer.length;
  }

  get droppedRows(): number {
    return this.dropped;
  }

  append(record: AuditLogRecord): void {
    this.buffer.push(record);
    const max = this.options.maxBufferedRows ?? 50_000;
    if (this.buffer.length > max && !this.flushing) this.drop(this.buffer.length - max, 'buffer_full');
  }

  /** Writes what is buffered; resolves when the attempt is over (never rejects). */
  flush(): Promise<void> {
    if (this.flushing) return this.flushing;
    if (this.buffer.length === 0 || Date.now() < this.retryAt) return Promise.resolve();
    this.flushing = this.writeAll().finally(() => {
      this.flushing = null;
    });
    return this.flushing;
  }

  /** Stops the timer and writes every buffered row, retrying until `deadlineMs` has passed. */
  async close(deadlineMs = 10_000): Promise<void> {
    clearInterval(this.timer);
    const until = Date.now() + deadlineMs;
    while ((this.buffer.length > 0 || this.flushing) && Date.now() < until) {
      this.retryAt = 0;
      await this.flush();
      if (this.buffer.length > 0 && this.failures > 0) await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  private async writeAll(): Promise<void> {
    let remaining = this.buffer.length;
    while (remaining > 0) {
      const batch = this.buffer.slice(0, Math.min(BATCH_ROWS, remaining));
      try {
        await this.dataSource.query(INSERT, [JSON.stringify(batch)]);
      } catch (error) {
        this.options.onError?.(error, this.buffer.length);
        if (isDataException(error)) {
          // Values PostgreSQL refuses (rows are cleaned before they get here): retrying cannot help,
          // and keeping them would block every row behind them.
          this.drop(batch.length, 'refused');
          remaining -= batch.length;
          continue;
        }
        this.failures++;
        this.retryAt = Date.now() + Math.min(30_000, 250 * 2 ** Math.min(this.failures, 7));
        return;
      }
      this.failures = 0;
      this.retryAt = 0;
      this.buffer.splice(0, batch.length);
      remaining -= batch.length;
    }
  }

  private drop(rows: number, reason: 'buffer_full' | 'refused'): void {
    this.buffer.splice(0, rows);
    this.dropped += rows;
    this.options.onDropped?.(rows, reason);
  }
}

/** SQLSTATE class 22 (data exception) and 23 (integrity): the same rows would fail again. */
function isDataException(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('22') || code.startsWith('23'));
}
