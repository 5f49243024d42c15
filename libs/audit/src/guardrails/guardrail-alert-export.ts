import { type LogExportSource } from '../export/log-export';
import { type GuardrailAlertResponse, toGuardrailAlertResponse } from './guardrail-alerts.dto';

/** The guardrail alerts' export: the list's record, its fields in the list's order. */
export const GUARDRAIL_ALERT_EXPORT: LogExportSource<GuardrailAlertResponse> = {
  table: '"audit"."guardrail_alerts"',
  name: 'guardrail-alerts',
  fields: [
    'guardrailAlertId',
    'createdAt',
    'service',
    'stage',
    'rule',
    'ruleType',
    'severity',
    'action',
    'matchCount',
    'excerpt',
    'conversationId',
    'messageId',
    'userId',
    'tenantId',
    'caller',
  ],
  toRecord: toGuardrailAlertResponse,
};
