import { type DataSource } from 'typeorm';
import { BatchedLogWriter, type DropReason, type LogTable } from '@fed/persistence';
import { type LlmGatewayLogEntity } from './llm-gateway-log.entity';

export type GatewayLogRow = { [K in keyof LlmGatewayLogEntity]: LlmGatewayLogEntity[K] };

const columns: readonly [keyof GatewayLogRow, string][] = [
  ['id', 'id'],
  ['createdAt', 'created_at'],
  ['virtualKeyId', 'virtual_key_id'],
  ['clientSessionId', 'client_session_id'],
  ['clientAgentId', 'client_agent_id'],
  ['apiFlavor', 'api_flavor'],
  ['modelName', 'model_name'],
  ['resolvedModel', 'resolved_model'],
  ['provider', 'provider'],
  ['deployment', 'deployment'],
  ['tier', 'tier'],
  ['stream', 'stream'],
  ['success', 'success'],
  ['httpStatus', 'http_status'],
  ['errorType', 'error_type'],
  ['errorCode', 'error_code'],
  ['usageStatus', 'usage_status'],
  ['latencyMs', 'latency_ms'],
  ['inputTokens', 'input_tokens'],
  ['outputTokens', 'output_tokens'],
  ['totalTokens', 'total_tokens'],
  ['cachedTokens', 'cached_tokens'],
  ['cacheCreationInputTokens', 'cache_creation_input_tokens'],
  ['reasoningTokens', 'reasoning_tokens'],
  ['costUsd', 'cost_usd'],
  ['currency', 'currency'],
  ['metadata', 'metadata'],
];

export interface GatewayLogWriterOptions {
  flushMs: number;
  /** Rows held while the database cannot take them; beyond, the oldest are dropped and counted. */
  maxBufferedRows?: number;
  onError?: (error: unknown, bufferedRows: number) => void;
  onDropped?: (rows: number, reason: DropReason) => void;
}

function toRecord(row: GatewayLogRow): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (const [field, column] of columns) record[column] = row[field];
  return record;
}

const TABLE: LogTable = { name: '"audit"."llm_gateway_logs"', columns: columns.map(([, column]) => column) };

/** Gateway log rows, written in batches so that no model call waits for the database (BatchedLogWriter). */
export class GatewayLogWriter extends BatchedLogWriter<GatewayLogRow> {
  constructor(dataSource: Pick<DataSource, 'query'>, options: GatewayLogWriterOptions) {
    super(dataSource, TABLE, { ...options, maxBufferedRows: options.maxBufferedRows ?? 200_000 }, toRecord);
  }
}
