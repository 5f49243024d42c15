import { type DayRange, type NumberedPageParams } from '@fed/contracts';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type LogPage, type LogReader, type LogTable, readLogPage, tenantScope } from '../audit-logs/log-page.query';
import { type LlmLogEntity } from './llm-log.entity';

const LLM_LOGS: LogTable = { table: '"audit"."llm_logs"', log: 'llm' };
const COLUMNS = `"id", "created_at" AS "createdAt", "recorded_at" AS "recordedAt", "service", "operation",
  "duration_ms" AS "durationMs", "conversation_id" AS "conversationId", "intent_type" AS "intentType",
  "confidence_score" AS "confidenceScore", "tools_used" AS "toolsUsed", "success", "agent_type" AS "agentType",
  "agent_level" AS "agentLevel", "task_complexity" AS "taskComplexity", "current_message" AS "currentMessage",
  "context_summary" AS "contextSummary", "suggested_approach" AS "suggestedApproach",
  "conversation_goal" AS "conversationGoal", "final_content" AS "finalContent", "metadata", "tenant_id" AS "tenantId"`;

@Injectable()
export class LlmLogsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** A page of the log as `tenantId` may see it (absent: every tenant's, and rows of none). */
  list(filter: LogReader, range: DayRange, page: NumberedPageParams): Promise<LogPage<LlmLogEntity>> {
    return readLogPage<LlmLogEntity>(
      this.dataSource,
      LLM_LOGS,
      COLUMNS,
      range,
      page,
      tenantScope(LLM_LOGS.log, filter.tenantId),
    );
  }
}
