import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { LOGGER, type Logger } from '@fed/observability';
import { Inject, Module, type OnModuleDestroy } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { GuardrailAlertWriter } from './guardrail-alert-writer';
import { GuardrailEngine } from './guardrail-engine';
import { loadGuardrailRules } from './guardrail-rules';

const FLUSH_MS = 1000;

/** For agent-runtime: the rules of GUARDRAIL_RULES_FILE, checked at start (a bad rule stops the app). */
@Module({
  providers: [
    {
      provide: GuardrailEngine,
      inject: [SERVICE_CONFIG],
      useFactory: (config: ServiceConfig) => new GuardrailEngine(loadGuardrailRules(config.guardrails.rulesFile)),
    },
    {
      provide: GuardrailAlertWriter,
      inject: [DataSource, LOGGER],
      useFactory: (dataSource: DataSource, logger: Logger) =>
        new GuardrailAlertWriter(dataSource, {
          flushMs: FLUSH_MS,
          onError: (error, bufferedRows) =>
            logger.warn({ err: error, bufferedRows }, 'guardrail alerts not written yet; retrying'),
        }),
    },
  ],
  exports: [GuardrailEngine, GuardrailAlertWriter],
})
export class GuardrailsModule implements OnModuleDestroy {
  constructor(@Inject(GuardrailAlertWriter) private readonly writer: GuardrailAlertWriter) {}

  async onModuleDestroy(): Promise<void> {
    await this.writer.close();
  }
}
