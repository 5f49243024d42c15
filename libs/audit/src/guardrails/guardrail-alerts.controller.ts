import { type AccessTokenPrincipal, CurrentPrincipal, Scopes, SaasOnly } from '@fed/auth';
import { dayRange, numberedPageEnvelope, toNumberedPageParams } from '@fed/contracts';
import { Controller, Get, Query } from '@nestjs/common';
import { type GuardrailAlertList, GuardrailAlertsQuery, toGuardrailAlertResponse } from './guardrail-alerts.dto';
import { GuardrailAlertsRepository } from './guardrail-alerts.repository';

@Scopes('logs:read')
@SaasOnly()
@Controller('api/v1/admin')
export class GuardrailAlertsController {
  constructor(private readonly alerts: GuardrailAlertsRepository) {}

  @Get('guardrail-alerts')
  async list(
    @CurrentPrincipal() principal: AccessTokenPrincipal,
    @Query() query: GuardrailAlertsQuery,
  ): Promise<GuardrailAlertList> {
    const page = toNumberedPageParams(query);
    const { rows, total } = await this.alerts.list(
      {
        // An admin reads the alerts of their own tenant; a token without one (platform service account) all.
        tenantId: principal.tenant?.id,
        severity: query.severity,
        rule: query.rule,
        conversationId: query.conversationId?.toLowerCase(),
      },
      dayRange(query.from, query.to),
      page,
    );
    return { guardrailAlerts: rows.map(toGuardrailAlertResponse), ...numberedPageEnvelope(page, total) };
  }
}
