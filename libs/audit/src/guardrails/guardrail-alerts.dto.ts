import { type NumberedPageEnvelope, isUuid } from '@fed/contracts';
import { LogPageQueryDto, withCode } from '@fed/server';
import { IsIn, IsOptional, ValidateBy } from 'class-validator';
import { type GuardrailAlertEntity } from './guardrail-alert.entity';
import { EXPORT_FORMATS, type ExportFormat } from '../export/log-export';
import { SEVERITIES } from './guardrail-rules';

/** A guardrail alert record (docs/admin.md, "Guardrail alerts"; the spec leaves its fields open). */
export interface GuardrailAlertResponse {
  guardrailAlertId: string;
  createdAt: string;
  service: string;
  stage: string;
  rule: string;
  ruleType: string;
  severity: string;
  action: string;
  matchCount: number;
  excerpt: string | null;
  conversationId: string | null;
  messageId: string | null;
  userId: string | null;
  tenantId: string | null;
  caller: string | null;
}

export interface GuardrailAlertList extends NumberedPageEnvelope {
  guardrailAlerts: GuardrailAlertResponse[];
}

const RULE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/;
const badParameter = (message: string) => withCode('invalid_parameter', message);

/** `GET /v1/admin/guardrail-alerts`: the log query and the filters; other parameters are ignored. */
export class GuardrailAlertsQuery extends LogPageQueryDto {
  @IsOptional()
  @IsIn(SEVERITIES, badParameter(`severity must be one of ${SEVERITIES.join(', ')}`))
  severity?: string;

  @IsOptional()
  @ValidateBy(
    {
      name: 'ruleName',
      validator: { validate: (value: unknown) => typeof value === 'string' && RULE_NAME.test(value) },
    },
    badParameter('rule must be a rule name: 1-64 letters, digits, "_", ".", ":" or "-"'),
  )
  rule?: string;

  @IsOptional()
  @ValidateBy(
    { name: 'conversationId', validator: { validate: (value: unknown) => typeof value === 'string' && isUuid(value) } },
    badParameter('conversationId must be a conversation id (a UUID)'),
  )
  conversationId?: string;
}

export function toGuardrailAlertResponse(row: GuardrailAlertEntity): GuardrailAlertResponse {
  return {
    guardrailAlertId: row.id,
    createdAt: new Date(row.createdAt).toISOString(),
    service: row.service,
    stage: row.stage,
    rule: row.rule,
    ruleType: row.ruleType,
    severity: row.severity,
    action: row.action,
    matchCount: row.matchCount,
    excerpt: row.excerpt,
    conversationId: row.conversationId,
    messageId: row.messageId,
    userId: row.userId,
    tenantId: row.tenantId,
    caller: row.caller,
  };
}

/** `GET /v1/admin/guardrail-alerts/export`: the list's filters and `format`. */
export class GuardrailAlertsExportQuery extends GuardrailAlertsQuery {
  @IsIn(EXPORT_FORMATS, badParameter('format must be csv or jsonl'))
  format!: ExportFormat;
}
