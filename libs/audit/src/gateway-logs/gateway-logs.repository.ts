import { type DayRange, type NumberedPageParams } from '@fed/contracts';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type LogPage, type LogReader, type LogTable, readLogPage, tenantScope } from '../audit-logs/log-page.query';
import { type LlmGatewayLogEntity } from './llm-gateway-log.entity';

const GATEWAY_LOGS: LogTable = { table: '"audit"."llm_gateway_logs"', log: 'gateway' };
const COLUMNS = `"id", "created_at" AS "createdAt", "virtual_key_id" AS "virtualKeyId",
  "client_session_id" AS "clientSessionId", "client_agent_id" AS "clientAgentId", "api_flavor" AS "apiFlavor",
  "model_name" AS "modelName", "resolved_model" AS "resolvedModel", "provider", "deployment", "tier", "stream",
  "success", "http_status" AS "httpStatus", "error_type" AS "errorType", "error_code" AS "errorCode",
  "usage_status" AS "usageStatus", "latency_ms" AS "latencyMs", "input_tokens" AS "inputTokens",
  "output_tokens" AS "outputTokens", "total_tokens" AS "totalTokens", "cached_tokens" AS "cachedTokens",
  "cache_creation_input_tokens" AS "cacheCreationInputTokens", "reasoning_tokens" AS "reasoningTokens",
  "cost_usd" AS "costUsd", "currency", "metadata", "tenant_id" AS "tenantId"`;

@Injectable()
export class GatewayLogsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** A page of the log as `tenantId` may see it (absent: every tenant's, and rows of none). */
  list(filter: LogReader, range: DayRange, page: NumberedPageParams): Promise<LogPage<LlmGatewayLogEntity>> {
    return readLogPage<LlmGatewayLogEntity>(
      this.dataSource,
      GATEWAY_LOGS,
      COLUMNS,
      range,
      page,
      tenantScope(GATEWAY_LOGS.log, filter.tenantId),
    );
  }
}
