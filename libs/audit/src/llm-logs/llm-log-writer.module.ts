import { LOGGER, type Logger } from '@fed/observability';
import { Inject, Module, type OnModuleDestroy } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { LlmLogWriter } from './llm-log-writer';

const FLUSH_MS = 1000;

/** The LLM log's writer, for the service that makes the model calls (agent-runtime). */
@Module({
  providers: [
    {
      provide: LlmLogWriter,
      inject: [DataSource, LOGGER],
      useFactory: (dataSource: DataSource, logger: Logger) =>
        new LlmLogWriter(dataSource, {
          flushMs: FLUSH_MS,
          onError: (error, bufferedRows) =>
            logger.warn({ err: error, bufferedRows }, 'LLM log rows not written yet; retrying'),
        }),
    },
  ],
  exports: [LlmLogWriter],
})
export class LlmLogWriterModule implements OnModuleDestroy {
  constructor(@Inject(LlmLogWriter) private readonly writer: LlmLogWriter) {}

  async onModuleDestroy(): Promise<void> {
    await this.writer.close();
  }
}
