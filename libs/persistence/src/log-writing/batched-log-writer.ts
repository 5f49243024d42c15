import { type DataSource } from 'typeorm';

/** Where a writer's rows go: a table and its columns (snake_case), as `json_populate_recordset` fills them. */
export interface LogTable {
  /** Schema-qualified and quoted: `"audit"."audit_logs"`. */
  name: string;
  columns: readonly string[];
}

export type DropReason = 'buffer_full' | 'refused' | 'database_gone';

export interface BatchedLogWriterOptions {
  flushMs: number;
  /** Rows held while the database cannot take them; beyond, the oldest are dropped and counted. */
  maxBufferedRows: number;
  onError?: (error: unknown, bufferedRows: number) => void;
  onDropped?: (rows: number, reason: DropReason) => void;
}

// Rows to a statement. A busy gateway buffers a few thousand rows a tick (about 4,000 at 4,000
// requests a second and the default 1 s tick): they go in as few statements as that allows, each a
// round trip and a commit (four statements of 100 where one would do doubled the benchmark's added
// p99 at concurrency 1). Bounded, because the batch is joined and copied on the event loop that
// serves the calls: 500 rows (about 350 KB) cost about 0.3 ms there.
const BATCH_ROWS = 500;

// The writers of a process take turns: a tick's write starts once the write of any other writer of the
// process has ended, or after one flush interval at most (a database that does not answer holds no one
// for longer). Every writer ticks on the same second, so the gateway's two logs (its calls' rows and
// the access log) were inserted at the same instant: two PostgreSQL backends busy at once for 30-60 ms,
// which on two shared cores left none to the calls (a quarter of the slowest 1% of calls at concurrency
// 1 fell in those windows, 2.5% of all calls).
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
 * Log rows written in batches (one multi-row INSERT per flush), off the path of the request that
 * caused them: no call waits for the database, and a slow or absent one never fails it. Rows wait in
 * memory while the database is slow or down and are written when it answers again (a retried insert
 * skips rows already written: they are keyed by id); a batch PostgreSQL refuses for its values is
 * dropped and counted, since it would fail again and block every row behind it. close() writes what is
 * left before the process stops; rows buffered when it dies without a graceful stop are lost.
 */
export class BatchedLogWriter<Row extends object = Record<string, unknown>> {
  /** Rows as JSON records: one string each, cheap to keep until written. */
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
    /** The row by column name (snake_case), as the table takes it. */
    private readonly toRecord: (row: Row) => object = (row) => row,
  ) {
    const columns = table.columns.map((column) => `"${column}"`).join(', ');
    this.insert = `INSERT INTO ${table.name} (${columns})
  SELECT ${columns} FROM json_populate_recordset(NULL::${table.name}, $1::json)`;
    this.insertSkippingWritten = `${this.insert} ON CONFLICT ("id") DO NOTHING`;
    this.timer = setInterval(() => void this.write(), options.flushMs);
    this.timer.unref();
  }

  /** Rows written so far are not counted; rows waiting are. */
  get pending(): number {
    return this.buffer.length;
  }

  get droppedRows(): number {
    return this.dropped;
  }

  append(row: Row): void {
    // Serialized now: a string is one flat object for the garbage collector, where a row object and
    // its fields would be scanned and copied by every collection until the flush.
    this.buffer.push(JSON.stringify(this.toRecord(row)));
    if (this.buffer.length > this.options.maxBufferedRows && !this.flushing) {
      this.drop(this.buffer.length - this.options.maxBufferedRows, 'buffer_full');
    }
    if (this.closed) void this.write();
  }

  /**
   * Writes what is buffered now (one batch after another); resolves when the attempt is over (never
   * rejects). A write already under way took only the rows buffered when it began: this one waits for it
   * and then writes the rest.
   */
  flush(): Promise<void> {
    return this.flushing ? this.flushing.then(() => this.write()) : this.write();
  }

  // The tick's write: none while one is under way (its rows wait for the next tick).
  private write(): Promise<void> {
    if (this.flushing) return this.flushing;
    if (this.buffer.length === 0 || Date.now() < this.retryAt) return Promise.resolve();
    this.flushing = inTurn(() => this.writeAll(), this.options.flushMs).finally(() => {
      this.flushing = null;
    });
    return this.flushing;
  }

  /**
   * Stops the timer and writes every buffered row, retrying until `deadlineMs` has passed. A database
   * that is gone (dropped, shutting down, refusing connections) ends the wait at once: retrying it
   * would only hold the shutdown, and a service closes several writers one after another.
   */
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

  /**
   * Writes the rows buffered when the flush began, a batch at a time. Rows that arrive meanwhile wait
   * for the next tick: chasing them made each flush of a busy gateway trail off in ever smaller
   * inserts (21 rows apiece on average in the benchmark), each a statement and a commit of its own,
   * a load on the database, and on the cores the service shares with it, for no row's benefit.
   */
  private async writeAll(): Promise<void> {
    let remaining = this.buffer.length;
    while (remaining > 0) {
      const batch = this.buffer.slice(0, Math.min(BATCH_ROWS, remaining));
      try {
        // After a failure the rows may have been written after all (the answer was lost): the retry
        // skips ids already there. The first attempt needs no such check (about 5% of the insert).
        // One JSON parameter for the whole batch, expanded by PostgreSQL: far cheaper to build than a
        // parameter per field.
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
      // Rows appended meanwhile sit after the batch; only the written ones leave.
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

/**
 * The database will not take rows soon: it does not exist (3D000), it is shutting down or starting
 * (57P01-57P03), the connection failed (class 08), or nothing listens (ECONNREFUSED).
 */
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
