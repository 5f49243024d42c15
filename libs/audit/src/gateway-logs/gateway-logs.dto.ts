import { type NumberedPageEnvelope } from '@fed/contracts';
import { type LlmGatewayLogEntity } from './llm-gateway-log.entity';

/** A gateway log record (spec document 3, "Gateway log"): every field, nullable except the id. */
export interface GatewayLogResponse {
  llmGatewayLogId: string;
  createdAt: string | null;
  virtualKeyId: string | null;
  clientSessionId: string | null;
  clientAgentId: string | null;
  apiFlavor: string | null;
  modelName: string | null;
  resolvedModel: string | null;
  provider: string | null;
  deployment: string | null;
  tier: string | null;
  stream: boolean | null;
  success: boolean | null;
  httpStatus: number | null;
  errorType: string | null;
  errorCode: string | null;
  usageStatus: string | null;
  latencyMs: number | null;
  inputTokens: number | null;
  outputTokens: number | null;
  totalTokens: number | null;
  cachedTokens: number | null;
  cacheCreationInputTokens: number | null;
  reasoningTokens: number | null;
  /** The exact decimal as a string (the spec allows a number or a string; a number would round it). */
  costUsd: string | null;
  currency: string | null;
  metadata: Record<string, unknown> | null;
  /** Whose row it is (null: no tenant's; the operator alone reads those). */
  tenantId: string | null;
}

export interface GatewayLogList extends NumberedPageEnvelope {
  llmGatewayLogs: GatewayLogResponse[];
}

export function toGatewayLogResponse(row: LlmGatewayLogEntity): GatewayLogResponse {
  return {
    llmGatewayLogId: row.id,
    createdAt: row.createdAt ? new Date(row.createdAt).toISOString() : null,
    virtualKeyId: row.virtualKeyId,
    clientSessionId: row.clientSessionId,
    clientAgentId: row.clientAgentId,
    apiFlavor: row.apiFlavor,
    modelName: row.modelName,
    resolvedModel: row.resolvedModel,
    provider: row.provider,
    deployment: row.deployment,
    tier: row.tier,
    stream: row.stream,
    success: row.success,
    httpStatus: row.httpStatus,
    errorType: row.errorType,
    errorCode: row.errorCode,
    usageStatus: row.usageStatus,
    latencyMs: row.latencyMs,
    inputTokens: row.inputTokens,
    outputTokens: row.outputTokens,
    totalTokens: row.totalTokens,
    cachedTokens: row.cachedTokens,
    cacheCreationInputTokens: row.cacheCreationInputTokens,
    reasoningTokens: row.reasoningTokens,
    costUsd: row.costUsd,
    currency: row.currency,
    metadata: row.metadata ?? null,
    tenantId: row.tenantId ?? null,
  };
}
