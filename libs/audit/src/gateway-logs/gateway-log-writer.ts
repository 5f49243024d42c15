import { type DataSource } from 'typeorm';
import { BatchedLogWriter, type DropReason, type LogTable } from '@fed/persistence';
import { type LlmGatewayLogEntity } from './llm-gateway-log.entity';

export type GatewayLogRow = { [K in keyof LlmGatewayLogEntity]: LlmGatewayLogEntity[K] };

const COLUMNS = [
  'id',
  'created_at',
  'virtual_key_id',
  'client_session_id',
  'client_agent_id',
  'api_flavor',
  'model_name',
  'resolved_model',
  'provider',
  'deployment',
  'tier',
  'stream',
  'success',
  'http_status',
  'error_type',
  'error_code',
  'usage_status',
  'latency_ms',
  'input_tokens',
  'output_tokens',
  'total_tokens',
  'cached_tokens',
  'cache_creation_input_tokens',
  'reasoning_tokens',
  'cost_usd',
  'currency',
  'metadata',
  'tenant_id',
] as const;

/** A row by column name, as `json_populate_recordset` takes it. */
type GatewayLogRecord = Record<(typeof COLUMNS)[number], unknown>;

export interface GatewayLogWriterOptions {
  flushMs: number;
  /** Rows held while the database cannot take them; beyond, the oldest are dropped and counted. */
  maxBufferedRows?: number;
  onError?: (error: unknown, bufferedRows: number) => void;
  onDropped?: (rows: number, reason: DropReason) => void;
}

// An object literal of one shape serializes much faster than one built key by key; this runs on every gateway call.
function toRecord(row: GatewayLogRow): GatewayLogRecord {
  return {
    id: row.id,
    created_at: row.createdAt,
    virtual_key_id: row.virtualKeyId,
    client_session_id: row.clientSessionId,
    client_agent_id: row.clientAgentId,
    api_flavor: row.apiFlavor,
    model_name: row.modelName,
    resolved_model: row.resolvedModel,
    provider: row.provider,
    deployment: row.deployment,
    tier: row.tier,
    stream: row.stream,
    success: row.success,
    http_status: row.httpStatus,
    error_type: row.errorType,
    error_code: row.errorCode,
    usage_status: row.usageStatus,
    latency_ms: row.latencyMs,
    input_tokens: row.inputTokens,
    output_tokens: row.outputTokens,
    total_tokens: row.totalTokens,
    cached_tokens: row.cachedTokens,
    cache_creation_input_tokens: row.cacheCreationInputTokens,
    reasoning_tokens: row.reasoningTokens,
    cost_usd: row.costUsd,
    currency: row.currency,
    metadata: row.metadata,
    tenant_id: row.tenantId,
  };
}

const TABLE: LogTable = { name: '"audit"."llm_gateway_logs"', columns: COLUMNS };

/** Gateway log rows, written in batches so that no model call waits for the database (BatchedLogWriter). */
export class GatewayLogWriter extends BatchedLogWriter<GatewayLogRow> {
  constructor(dataSource: Pick<DataSource, 'query'>, options: GatewayLogWriterOptions) {
    super(dataSource, TABLE, { ...options, maxBufferedRows: options.maxBufferedRows ?? 200_000 }, toRecord);
  }
}
