import { type NumberedPageEnvelope } from '@fed/contracts';
import { type LlmLogEntity } from './llm-log.entity';

/** An LLM log record (spec document 3, "LLM log"): every field, nullable except the id. */
export interface LlmLogResponse {
  llmLogId: string;
  timestamp: string | null;
  service: string | null;
  operation: string | null;
  durationMs: number | null;
  conversationId: string | null;
  intentType: string | null;
  confidenceScore: number | null;
  /** Tool calls: null = not measured, 0 = measured with none. */
  toolsUsed: number | null;
  success: boolean | null;
  agentType: string | null;
  agentLevel: string | null;
  taskComplexity: string | null;
  currentMessage: string | null;
  contextSummary: string | null;
  suggestedApproach: string | null;
  conversationGoal: string | null;
  finalContent: string | null;
  metadata: Record<string, unknown> | null;
  createdAt: string | null;
  /** Whose row it is (null: no tenant's; the operator alone reads those). */
  tenantId: string | null;
}

export interface LlmLogList extends NumberedPageEnvelope {
  llmLogs: LlmLogResponse[];
}

const iso = (instant: Date | string | null) => (instant ? new Date(instant).toISOString() : null);

export function toLlmLogResponse(row: LlmLogEntity): LlmLogResponse {
  return {
    llmLogId: row.id,
    timestamp: iso(row.createdAt),
    service: row.service,
    operation: row.operation,
    durationMs: row.durationMs,
    conversationId: row.conversationId,
    intentType: row.intentType,
    confidenceScore: row.confidenceScore,
    toolsUsed: row.toolsUsed,
    success: row.success,
    agentType: row.agentType,
    agentLevel: row.agentLevel,
    taskComplexity: row.taskComplexity,
    currentMessage: row.currentMessage,
    contextSummary: row.contextSummary,
    suggestedApproach: row.suggestedApproach,
    conversationGoal: row.conversationGoal,
    finalContent: row.finalContent,
    metadata: row.metadata ?? null,
    createdAt: iso(row.recordedAt),
    tenantId: row.tenantId ?? null,
  };
}
