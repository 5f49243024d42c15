import { type DataSource } from 'typeorm';
import { BatchedLogWriter, type LogTable, storableText, timeOrderedUuid } from '@fed/persistence';
import { type LlmLogEntity } from './llm-log.entity';

/** Longest text kept in a content field (`currentMessage`, `finalContent`, ...). */
export const LLM_LOG_TEXT_LIMIT = 4000;

/** One model call as the runtime knows it; fields it does not know are left out (stored null). */
export interface LlmCallRecord {
  startedAt: Date;
  durationMs: number;
  service: string;
  operation: string;
  success: boolean;
  conversationId?: string | null;
  /** The turn's tenant: whose admins read the row (null: the operator only). */
  tenantId?: string | null;
  intentType?: string | null;
  confidenceScore?: number | null;
  toolsUsed?: number | null;
  agentType?: string | null;
  agentLevel?: string | null;
  taskComplexity?: string | null;
  currentMessage?: string | null;
  contextSummary?: string | null;
  suggestedApproach?: string | null;
  conversationGoal?: string | null;
  finalContent?: string | null;
  metadata?: Record<string, unknown> | null;
}

const columns: readonly [keyof LlmLogEntity, string][] = [
  ['id', 'id'],
  ['createdAt', 'created_at'],
  ['recordedAt', 'recorded_at'],
  ['service', 'service'],
  ['operation', 'operation'],
  ['durationMs', 'duration_ms'],
  ['conversationId', 'conversation_id'],
  ['intentType', 'intent_type'],
  ['confidenceScore', 'confidence_score'],
  ['toolsUsed', 'tools_used'],
  ['success', 'success'],
  ['agentType', 'agent_type'],
  ['agentLevel', 'agent_level'],
  ['taskComplexity', 'task_complexity'],
  ['currentMessage', 'current_message'],
  ['contextSummary', 'context_summary'],
  ['suggestedApproach', 'suggested_approach'],
  ['conversationGoal', 'conversation_goal'],
  ['finalContent', 'final_content'],
  ['metadata', 'metadata'],
  ['tenantId', 'tenant_id'],
];

const TEXT_FIELDS = new Set<keyof LlmLogEntity>([
  'currentMessage',
  'contextSummary',
  'suggestedApproach',
  'conversationGoal',
  'finalContent',
]);

const TABLE: LogTable = { name: '"audit"."llm_logs"', columns: columns.map(([, column]) => column) };

export interface LlmLogWriterOptions {
  flushMs: number;
  maxBufferedRows?: number;
  onError?: (error: unknown, bufferedRows: number) => void;
}

/** Batched off the turn's path, so a slow or absent database never delays or fails a turn. */
export class LlmLogWriter extends BatchedLogWriter {
  constructor(dataSource: Pick<DataSource, 'query'>, options: LlmLogWriterOptions) {
    super(dataSource, TABLE, { ...options, maxBufferedRows: options.maxBufferedRows ?? 50_000 });
  }

  record(call: LlmCallRecord): void {
    const { startedAt, ...fields } = call;
    const row: Partial<Record<keyof LlmLogEntity, unknown>> = {
      ...fields,
      id: timeOrderedUuid(startedAt.getTime()),
      createdAt: startedAt.toISOString(),
      recordedAt: new Date().toISOString(),
    };
    const record: Record<string, unknown> = {};
    for (const [field, column] of columns) {
      const value = row[field] ?? null;
      record[column] = TEXT_FIELDS.has(field) && typeof value === 'string' ? storable(value) : value;
    }
    this.append(record);
  }
}

/** At most LLM_LOG_TEXT_LIMIT characters, without NUL or lone surrogates (PostgreSQL text refuses them). */
export function storable(text: string): string {
  return storableText(text, LLM_LOG_TEXT_LIMIT);
}
