import { type GatewayLogWriter, type GuardrailAlertWriter, type GuardrailEngine } from '@fed/audit';
import { type Logger } from '@fed/observability';
import { type UsageLimits } from '../limits/usage-limits';
import { type GatewayMetrics } from '../metrics/gateway-metrics';
import { type RoutingTable } from '../routing/routing-table';
import { type UpstreamClient } from '../upstream/upstream-client';
import { type TokenCounter } from '../usage/token-counter';

export interface GatewayContext {
  routing(): RoutingTable;
  readonly upstream: UpstreamClient;
  readonly limits: UsageLimits;
  readonly log: GatewayLogWriter;
  readonly logger: Logger;
  readonly tokens: TokenCounter;
  readonly metrics: GatewayMetrics;
  /** Absent when there are none. */
  readonly guardrails?: GatewayGuardrails;
}

export interface GatewayGuardrails {
  readonly engine: GuardrailEngine;
  readonly alerts: Pick<GuardrailAlertWriter, 'record' | 'close'>;
  readonly service: string;
}
