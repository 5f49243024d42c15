import { LOGGER, type Logger } from '@fed/observability';
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AccessLog } from './access-log';
import { AccessLogWriter } from './access-log-writer';

const FLUSH_MS = 1000;
// Bounded while the database is away; then the oldest go.
const MAX_BUFFERED_ROWS = 50_000;

/** Writes what is left on shutdown; the host drains open requests first, so their rows are in. */
@Injectable()
export class AccessLogFlusher implements OnModuleDestroy {
  private readonly writer: AccessLogWriter;

  constructor(
    dataSource: DataSource,
    private readonly accessLog: AccessLog,
    @Inject(LOGGER) logger: Logger,
  ) {
    let lastWarning = 0;
    this.writer = new AccessLogWriter(dataSource, {
      flushMs: FLUSH_MS,
      maxBufferedRows: MAX_BUFFERED_ROWS,
      onError: (error, bufferedRows) => {
        // Not a line a tick.
        if (Date.now() - lastWarning < 10_000) return;
        lastWarning = Date.now();
        logger.warn({ err: error, bufferedRows }, 'access log rows not written yet; retrying');
      },
      onDropped: (rows, reason) => logger.error({ rows, reason }, 'access log rows dropped'),
    });
    accessLog.attach(this.writer);
  }

  async onModuleDestroy(): Promise<void> {
    await this.writer.close();
    this.accessLog.attach(undefined);
  }
}
