import { type DataSource } from 'typeorm';

/** Columns in snake_case, as `json_populate_recordset` fills them. */
export interface LogTable {
  /** Schema-qualified and quoted: `"audit"."audit_logs"`. */
  name: string;
  columns: readonly string[];
}

export type DropReason = 'buffer_full' | 'refused' | 'database_gone';

export interface BatchedLogWriterOptions {
  flushMs: number;
  /** Beyond this, the oldest are dropped and counted. */
  maxBufferedRows: number;
  onError?: (error: unknown, bufferedRows: number) => void;
  onDropped?: (rows: number, reason: DropReason) => void;
}

// Few statements per tick (each a round trip and a commit), but bounded: the batch is joined and
// copied on the event loop that serves the calls.
const BATCH_ROWS = 500;

// Writers of a process take turns (waiting at most one flush interval), so two logs ticking on the same
// second do not keep two PostgreSQL backends busy at once, starving the calls on shared cores.
let lane: Promise<unknown> = Promise.resolve();

function inTurn<T>(work: () => Promise<T>, maxWaitMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const turn = Promise.race([
    lane,
    new Promise((resolve) => {
      timer = setTimeout(resolve, maxWaitMs);
      timer.unref();
    }),
  ]).then(() => {
    clearTimeout(timer);
    return work();
  });
  lane = turn.catch(() => undefined);
  return turn;
}

/**
 * Off the request path: no call waits for the database, and a slow or absent one never fails it. Rows wait
 * in memory until it answers (retries skip rows already written, keyed by id); a batch refused for its
 * values is dropped and counted, since it would block every row behind it. Rows are lost only if the
 * process dies without close().
 */
export class BatchedLogWriter<Row extends object = Record<string, unknown>> {
  /** One string each, cheap to keep until written. */
  private buffer: string[] = [];
  private readonly timer: NodeJS.Timeout;
  private readonly insert: string;
  private readonly insertSkippingWritten: string;
  private flushing: Promise<void> | null = null;
  private failures = 0;
  private retryAt = 0;
  private dropped = 0;
  private closed = false;
  private lastErrorGone = false;

  constructor(
    private readonly dataSource: Pick<DataSource, 'query'>,
    table: LogTable,
    private readonly options: BatchedLogWriterOptions,
    private readonly toRecord: (row: Row) => object = (row) => row,
  ) {
    const columns = table.columns.map((column) => `"${column}"`).join(', ');
    this.insert = `INSERT INTO ${table.name} (${columns})
  SELECT ${columns} FROM json_populate_recordset(NULL::${table.name}, $1::json)`;
    this.insertSkippingWritten = `${this.insert} ON CONFLICT ("id") DO NOTHING`;
    this.timer = setInterval(() => void this.write(), options.flushMs);
    this.timer.unref();
  }

  /** Rows waiting. */
  get pending(): number {
    return this.buffer.length;
  }

  get droppedRows(): number {
    return this.dropped;
  }

  append(row: Row): void {
    // A string is one flat object for the GC, where a row object would be scanned by every collection.
    this.buffer.push(JSON.stringify(this.toRecord(row)));
    if (this.buffer.length > this.options.maxBufferedRows && !this.flushing) {
      this.drop(this.buffer.length - this.options.maxBufferedRows, 'buffer_full');
    }
    if (this.closed) void this.write();
  }

  /** Never rejects. A write under way took only the rows buffered when it began: this one writes the rest. */
  flush(): Promise<void> {
    return this.flushing ? this.flushing.then(() => this.write()) : this.write();
  }

  // None while one is under way (its rows wait for the next tick).
  private write(): Promise<void> {
    if (this.flushing) return this.flushing;
    if (this.buffer.length === 0 || Date.now() < this.retryAt) return Promise.resolve();
    this.flushing = inTurn(() => this.writeAll(), this.options.flushMs).finally(() => {
      this.flushing = null;
    });
    return this.flushing;
  }

  /** A database that is gone ends the wait at once: a service closes several writers one after another. */
  async close(deadlineMs = 5_000): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    const until = Date.now() + deadlineMs;
    while ((this.buffer.length > 0 || this.flushing) && Date.now() < until) {
      this.retryAt = 0;
      await this.flush();
      if (this.buffer.length > 0 && this.lastErrorGone) {
        this.drop(this.buffer.length, 'database_gone');
        return;
      }
      if (this.buffer.length > 0 && this.failures > 0) await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  /** Rows that arrive meanwhile wait for the next tick: chasing them trails off in ever smaller inserts. */
  private async writeAll(): Promise<void> {
    let remaining = this.buffer.length;
    while (remaining > 0) {
      const batch = this.buffer.slice(0, Math.min(BATCH_ROWS, remaining));
      try {
        // After a failure the rows may have been written after all (the answer was lost): the retry skips ids
        // already there. One JSON parameter for the batch: far cheaper to build than a parameter per field.
        await this.dataSource.query(this.failures > 0 ? this.insertSkippingWritten : this.insert, [
          `[${batch.join(',')}]`,
        ]);
      } catch (error) {
        this.lastErrorGone = isDatabaseGone(error);
        this.options.onError?.(error, this.buffer.length);
        if (isDataException(error)) {
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
      this.lastErrorGone = false;
      // Rows appended meanwhile sit after the batch.
      this.buffer.splice(0, batch.length);
      remaining -= batch.length;
    }
  }

  private drop(rows: number, reason: DropReason): void {
    this.buffer.splice(0, rows);
    this.dropped += rows;
    this.options.onDropped?.(rows, reason);
  }
}

/** 3D000, 57P01-57P03, class 08, or ECONNREFUSED: the database will not take rows soon. */
function isDatabaseGone(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return false;
  return code === '3D000' || code.startsWith('57P') || code.startsWith('08') || code === 'ECONNREFUSED';
}

/** SQLSTATE class 22 (data exception) and 23 (integrity): the same rows would fail again. */
function isDataException(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('22') || code.startsWith('23'));
}
