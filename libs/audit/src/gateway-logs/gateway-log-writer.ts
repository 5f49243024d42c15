import { type DataSource } from 'typeorm';
import { type LlmGatewayLogEntity } from './llm-gateway-log.entity';

export type GatewayLogRow = { [K in keyof LlmGatewayLogEntity]: LlmGatewayLogEntity[K] };

const columns: readonly [keyof GatewayLogRow, string][] = [
  ['id', 'id'],
  ['createdAt', 'created_at'],
  ['virtualKeyId', 'virtual_key_id'],
  ['clientSessionId', 'client_session_id'],
  ['clientAgentId', 'client_agent_id'],
  ['apiFlavor', 'api_flavor'],
  ['modelName', 'model_name'],
  ['resolvedModel', 'resolved_model'],
  ['provider', 'provider'],
  ['deployment', 'deployment'],
  ['tier', 'tier'],
  ['stream', 'stream'],
  ['success', 'success'],
  ['httpStatus', 'http_status'],
  ['errorType', 'error_type'],
  ['errorCode', 'error_code'],
  ['usageStatus', 'usage_status'],
  ['latencyMs', 'latency_ms'],
  ['inputTokens', 'input_tokens'],
  ['outputTokens', 'output_tokens'],
  ['totalTokens', 'total_tokens'],
  ['cachedTokens', 'cached_tokens'],
  ['cacheCreationInputTokens', 'cache_creation_input_tokens'],
  ['reasoningTokens', 'reasoning_tokens'],
  ['costUsd', 'cost_usd'],
  ['currency', 'currency'],
  ['metadata', 'metadata'],
];

const columnList = columns.map(([, column]) => `"${column}"`).join(', ');
const INSERT = `INSERT INTO "audit"."llm_gateway_logs" (${columnList})
  SELECT ${columnList} FROM json_populate_recordset(NULL::"audit"."llm_gateway_logs", $1::json)`;
const INSERT_SKIPPING_WRITTEN = `${INSERT} ON CONFLICT ("id") DO NOTHING`;

// Rows to a statement. A busy gateway buffers a few thousand rows a tick (about 4,000 at 4,000
// requests a second and the default 1 s tick): they go in as few statements as that allows, each a
// round trip and a commit (four statements of 100 where one would do doubled the benchmark's added
// p99 at concurrency 1). Bounded, because the batch is joined and copied on the event loop that
// serves the calls: 500 rows (about 350 KB) cost about 0.3 ms there.
const BATCH_ROWS = 500;

export interface GatewayLogWriterOptions {
  flushMs: number;
  /** Rows held while the database cannot take them; beyond, the oldest are dropped and counted. */
  maxBufferedRows?: number;
  onError?: (error: unknown, bufferedRows: number) => void;
  onDropped?: (rows: number) => void;
}

/**
 * Gateway log rows written in batches (one multi-row INSERT per flush) so that no model call waits
 * for the database. Rows wait in memory while the database is slow or down and are written when it
 * answers again (an insert that failed after all is retried safely: rows are keyed by id); close()
 * writes what is left before the process stops.
 */
export class GatewayLogWriter {
  /** Rows as JSON records (snake_case columns): one string each, cheap to keep until written. */
  private buffer: string[] = [];
  private readonly timer: NodeJS.Timeout;
  private flushing: Promise<void> | null = null;
  private failures = 0;
  private retryAt = 0;
  private dropped = 0;
  private closed = false;

  constructor(
    private readonly dataSource: Pick<DataSource, 'query'>,
    private readonly options: GatewayLogWriterOptions,
  ) {
    this.timer = setInterval(() => void this.flush(), options.flushMs);
    this.timer.unref();
  }

  /** Rows written so far are not counted; rows waiting are. */
  get pending(): number {
    return this.buffer.length;
  }

  get droppedRows(): number {
    return this.dropped;
  }

  append(row: GatewayLogRow): void {
    // Serialized now: a string is one flat object for the garbage collector, where a row object and
    // its fields would be scanned and copied by every collection until the flush.
    const record: Record<string, unknown> = {};
    for (const [field, column] of columns) record[column] = row[field];
    this.buffer.push(JSON.stringify(record));
    const max = this.options.maxBufferedRows ?? 200_000;
    if (this.buffer.length > max && !this.flushing) {
      const excess = this.buffer.length - max;
      this.buffer.splice(0, excess);
      this.dropped += excess;
      this.options.onDropped?.(excess);
    }
    if (this.closed) void this.flush();
  }

  /** Writes what is buffered (one batch after another); resolves when the attempt is over. */
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
    this.closed = true;
    clearInterval(this.timer);
    const until = Date.now() + deadlineMs;
    while ((this.buffer.length > 0 || this.flushing) && Date.now() < until) {
      this.retryAt = 0;
      await this.flush();
      if (this.buffer.length > 0 && this.failures > 0) await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  /**
   * Writes the rows buffered when the flush began, a batch at a time. Rows that arrive meanwhile wait
   * for the next tick: chasing them made each flush of a busy gateway trail off in ever smaller
   * inserts (21 rows apiece on average in the benchmark), each a statement and a commit of its own,
   * a load on the database, and on the cores the gateway shares with it, for no row's benefit.
   */
  private async writeAll(): Promise<void> {
    let remaining = this.buffer.length;
    while (remaining > 0) {
      const batch = this.buffer.slice(0, Math.min(BATCH_ROWS, remaining));
      try {
        // After a failure the rows may have been written after all (the answer was lost): the retry
        // skips ids already there. The first attempt needs no such check (about 5% of the insert).
        await this.insert(batch, this.failures > 0);
      } catch (error) {
        this.failures++;
        this.retryAt = Date.now() + Math.min(30_000, 250 * 2 ** Math.min(this.failures, 7));
        this.options.onError?.(error, this.buffer.length);
        return;
      }
      this.failures = 0;
      this.retryAt = 0;
      // Rows appended meanwhile sit after the batch; only the written ones leave.
      this.buffer.splice(0, batch.length);
      remaining -= batch.length;
    }
  }

  /** One JSON parameter for the whole batch, expanded by PostgreSQL: far cheaper to build than a parameter per field. */
  private async insert(records: string[], retry: boolean): Promise<void> {
    await this.dataSource.query(retry ? INSERT_SKIPPING_WRITTEN : INSERT, [`[${records.join(',')}]`]);
  }
}
