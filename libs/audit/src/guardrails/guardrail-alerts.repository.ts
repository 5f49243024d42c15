import { type DayRange, type NumberedPageParams } from '@fed/contracts';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type LogPage, type LogPageFilter, type LogTable, readLogPage } from '../audit-logs/log-page.query';
import { type GuardrailAlertEntity } from './guardrail-alert.entity';

const GUARDRAIL_ALERTS: LogTable = { table: '"audit"."guardrail_alerts"', log: 'guardrail' };
const COLUMNS = `"id", "created_at" AS "createdAt", "service", "stage", "rule", "rule_type" AS "ruleType", "severity",
  "action", "match_count" AS "matchCount", "excerpt", "conversation_id" AS "conversationId",
  "message_id" AS "messageId", "user_id" AS "userId", "tenant_id" AS "tenantId", "caller"`;

export interface GuardrailAlertFilter {
  /** Absent: every tenant's (a token without a tenant). */
  tenantId?: string;
  severity?: string;
  rule?: string;
  conversationId?: string;
}

@Injectable()
export class GuardrailAlertsRepository {
  constructor(private readonly dataSource: DataSource) {}

  list(
    filter: GuardrailAlertFilter,
    range: DayRange,
    page: NumberedPageParams,
  ): Promise<LogPage<GuardrailAlertEntity>> {
    const equals: LogPageFilter['equals'][number][] = [];
    if (filter.tenantId !== undefined) equals.push({ column: '"tenant_id"', value: filter.tenantId });
    if (filter.severity !== undefined) equals.push({ column: '"severity"', value: filter.severity });
    if (filter.rule !== undefined) equals.push({ column: '"rule"', value: filter.rule });
    if (filter.conversationId !== undefined) {
      equals.push({ column: '"conversation_id"', value: filter.conversationId });
    }
    // Day counts exist for a tenant alone ('guardrail:<tenantId>'); other filters count through their index.
    const tenantOnly = filter.tenantId !== undefined && equals.length === 1;
    return readLogPage<GuardrailAlertEntity>(this.dataSource, GUARDRAIL_ALERTS, COLUMNS, range, page, {
      equals,
      countedAs: tenantOnly ? `guardrail:${filter.tenantId}` : undefined,
    });
  }
}
