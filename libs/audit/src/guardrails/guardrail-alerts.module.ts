import { Module } from '@nestjs/common';
import { GuardrailAlertsController } from './guardrail-alerts.controller';
import { GuardrailAlertsRepository } from './guardrail-alerts.repository';

/** `GET /v1/admin/guardrail-alerts` (logs:read) over the table agent-runtime writes. */
@Module({
  controllers: [GuardrailAlertsController],
  providers: [GuardrailAlertsRepository],
})
export class GuardrailAlertsModule {}
