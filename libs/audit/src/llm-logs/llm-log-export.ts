import { type LogExportSource } from '../export/log-export';
import { type LlmLogResponse, toLlmLogResponse } from './llm-logs.dto';

/** The LLM log's export: the list's record, its fields in the list's order. */
export const LLM_LOG_EXPORT: LogExportSource<LlmLogResponse> = {
  table: '"audit"."llm_logs"',
  name: 'llm-logs',
  fields: [
    'llmLogId',
    'timestamp',
    'service',
    'operation',
    'durationMs',
    'conversationId',
    'intentType',
    'confidenceScore',
    'toolsUsed',
    'success',
    'agentType',
    'agentLevel',
    'taskComplexity',
    'currentMessage',
    'contextSummary',
    'suggestedApproach',
    'conversationGoal',
    'finalContent',
    'metadata',
    'createdAt',
    'tenantId',
  ],
  toRecord: toLlmLogResponse,
};
