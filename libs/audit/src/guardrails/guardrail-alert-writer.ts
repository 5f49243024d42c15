import { BatchedLogWriter, type LogTable, storableText, timeOrderedUuid } from '@fed/persistence';
import { type DataSource } from 'typeorm';
import { type GuardrailFinding } from './guardrail-engine';
import { type GuardrailStage } from './guardrail-rules';

/** Longest excerpt stored (the engine's are shorter; PII labels may lengthen them a little). */
export const EXCERPT_LIMIT = 400;

export interface GuardrailAlertContext {
  service: string;
  stage: GuardrailStage;
  conversationId?: string | null;
  messageId?: string | null;
  userId?: string | null;
  tenantId?: string | null;
  /** Stage `gateway`: `api-key:<virtualKeyId>` or `client:<clientId>`. */
  caller?: string | null;
  /** A private-mode turn: the alert keeps no excerpt of the contents. */
  withoutContents?: boolean;
}

const TABLE: LogTable = {
  name: '"audit"."guardrail_alerts"',
  columns: [
    'id',
    'created_at',
    'service',
    'stage',
    'rule',
    'rule_type',
    'severity',
    'action',
    'match_count',
    'excerpt',
    'conversation_id',
    'message_id',
    'user_id',
    'tenant_id',
    'caller',
  ],
};

export interface GuardrailAlertWriterOptions {
  flushMs: number;
  maxBufferedRows?: number;
  onError?: (error: unknown, bufferedRows: number) => void;
}

/** Guardrail alerts, written in batches off the turn's path (BatchedLogWriter). */
export class GuardrailAlertWriter extends BatchedLogWriter {
  constructor(dataSource: Pick<DataSource, 'query'>, options: GuardrailAlertWriterOptions) {
    super(dataSource, TABLE, { ...options, maxBufferedRows: options.maxBufferedRows ?? 50_000 });
  }

  record(findings: readonly GuardrailFinding[], context: GuardrailAlertContext, at = new Date()): void {
    for (const { rule, matchCount, excerpt } of findings) {
      this.append({
        id: timeOrderedUuid(at.getTime()),
        created_at: at.toISOString(),
        service: context.service,
        stage: context.stage,
        rule: rule.name,
        rule_type: rule.kind,
        severity: rule.severity,
        action: rule.action,
        match_count: matchCount,
        excerpt: context.withoutContents ? null : storableText(excerpt, EXCERPT_LIMIT),
        conversation_id: context.conversationId ?? null,
        message_id: context.messageId ?? null,
        user_id: context.userId ?? null,
        tenant_id: context.tenantId ?? null,
        caller: context.caller ?? null,
      });
    }
  }
}
