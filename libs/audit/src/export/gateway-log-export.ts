import { type GatewayLogResponse, toGatewayLogResponse } from '../gateway-logs/gateway-logs.dto';
import { type LogExportSource } from './log-export';

/** The gateway log's export (kept here: gateway-logs/ has its own owner): the list's record and field order. */
export const GATEWAY_LOG_EXPORT: LogExportSource<GatewayLogResponse> = {
  table: '"audit"."llm_gateway_logs"',
  name: 'llm-gateway-logs',
  fields: [
    'llmGatewayLogId',
    'createdAt',
    'virtualKeyId',
    'clientSessionId',
    'clientAgentId',
    'apiFlavor',
    'modelName',
    'resolvedModel',
    'provider',
    'deployment',
    'tier',
    'stream',
    'success',
    'httpStatus',
    'errorType',
    'errorCode',
    'usageStatus',
    'latencyMs',
    'inputTokens',
    'outputTokens',
    'totalTokens',
    'cachedTokens',
    'cacheCreationInputTokens',
    'reasoningTokens',
    'costUsd',
    'currency',
    'metadata',
    'tenantId',
  ],
  toRecord: toGatewayLogResponse,
};
