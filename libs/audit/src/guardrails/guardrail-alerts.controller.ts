import { type AccessTokenPrincipal, CurrentPrincipal, Scopes, SaasOnly } from '@fed/auth';
import { dayRange, numberedPageEnvelope, toNumberedPageParams } from '@fed/contracts';
import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import { type Request, type Response } from 'express';
import { DataSource } from 'typeorm';
import { logExportRequest, streamLogExport } from '../export/log-export';
import { GUARDRAIL_ALERT_EXPORT } from './guardrail-alert-export';
import {
  type GuardrailAlertList,
  GuardrailAlertsExportQuery,
  GuardrailAlertsQuery,
  toGuardrailAlertResponse,
} from './guardrail-alerts.dto';
import { GuardrailAlertsRepository } from './guardrail-alerts.repository';

@Scopes('logs:read')
@SaasOnly()
@Controller('api/v1/admin')
export class GuardrailAlertsController {
  constructor(
    private readonly alerts: GuardrailAlertsRepository,
    private readonly dataSource: DataSource,
  ) {}

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

  /** The range (and the list's filters) as a CSV or JSON lines file, streamed; the same rows as the list's. */
  @Get('guardrail-alerts/export')
  async export(
    @CurrentPrincipal() principal: AccessTokenPrincipal,
    @Query() query: GuardrailAlertsExportQuery,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const equals = [
      ...(query.severity === undefined ? [] : [{ column: '"severity"', value: query.severity }]),
      ...(query.rule === undefined ? [] : [{ column: '"rule"', value: query.rule }]),
      ...(query.conversationId === undefined
        ? []
        : [{ column: '"conversation_id"', value: query.conversationId.toLowerCase() }]),
    ];
    await streamLogExport(
      this.dataSource,
      GUARDRAIL_ALERT_EXPORT,
      logExportRequest(query, principal.tenant?.id, equals),
      { req, res },
    );
  }
}
