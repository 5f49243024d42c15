import { type ServerResponse } from 'node:http';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { type MetricDefinition, type Metrics } from './metrics';

export type SseStreamKind = 'chat' | 'a2a' | 'mcp';

export const sseStreamsActive: MetricDefinition<Gauge<'kind'>> = {
  name: 'sse_streams_active',
  create: (registry) =>
    new Gauge({
      name: 'sse_streams_active',
      help: 'Server-sent-event streams open to clients, by kind (chat, a2a, mcp).',
      labelNames: ['kind'],
      registers: [registry],
    }),
};

/** `completed`: answered or asked the user; `unfinished`: step limit, or taken over. */
export type TurnOutcome = 'completed' | 'cancelled' | 'error' | 'unfinished';

export const agentTurns: MetricDefinition<Counter<'outcome'>> = {
  name: 'agent_turns_total',
  create: (registry) =>
    new Counter({
      name: 'agent_turns_total',
      help: 'Agent turns ended by this runtime, by outcome.',
      labelNames: ['outcome'],
      registers: [registry],
    }),
};

export const agentTurnDuration: MetricDefinition<Histogram<'outcome'>> = {
  name: 'agent_turn_duration_seconds',
  create: (registry) =>
    new Histogram({
      name: 'agent_turn_duration_seconds',
      help: 'Time from taking a turn off the queue to its end, by outcome.',
      labelNames: ['outcome'],
      buckets: [0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300, 600, 1800],
      registers: [registry],
    }),
};

export const gatewayTokens: MetricDefinition<Counter<'model' | 'key' | 'direction'>> = {
  name: 'gateway_tokens_total',
  create: (registry) =>
    new Counter({
      name: 'gateway_tokens_total',
      help: 'Model tokens billed by the gateway, by configured model name, key id and direction (input, output).',
      labelNames: ['model', 'key', 'direction'],
      registers: [registry],
    }),
};

export const gatewayCost: MetricDefinition<Counter<'model' | 'key'>> = {
  name: 'gateway_cost_usd_total',
  create: (registry) =>
    new Counter({
      name: 'gateway_cost_usd_total',
      help: 'Cost in US dollars of the calls the gateway priced, by configured model name and key id.',
      labelNames: ['model', 'key'],
      registers: [registry],
    }),
};

/** `error` when no status came back. */
export type UpstreamStatusClass = '2xx' | '3xx' | '4xx' | '5xx' | 'error';
export type UpstreamErrorReason = 'status_4xx' | 'status_5xx' | 'timeout' | 'connection';

export const gatewayUpstreamDuration: MetricDefinition<Histogram<'provider' | 'status_class'>> = {
  name: 'gateway_upstream_duration_seconds',
  create: (registry) =>
    new Histogram({
      name: 'gateway_upstream_duration_seconds',
      help: "Time from sending one attempt to a provider to its answer's status (or failure), by provider and status class.",
      labelNames: ['provider', 'status_class'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
      registers: [registry],
    }),
};

export const gatewayUpstreamErrors: MetricDefinition<Counter<'provider' | 'reason'>> = {
  name: 'gateway_upstream_errors_total',
  create: (registry) =>
    new Counter({
      name: 'gateway_upstream_errors_total',
      help: 'Failed attempts at a provider (and streams it broke off), by provider and reason.',
      labelNames: ['provider', 'reason'],
      registers: [registry],
    }),
};

/** Read on scrape: the sum of what its sources measure then. */
export class MeasuredGauge {
  private readonly sources = new Set<() => number>();

  constructor(name: string, help: string, registry: Registry) {
    const sources = this.sources;
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        let total = 0;
        for (const source of sources) total += source();
        this.set(total);
      },
    });
  }

  /** Until the returned function is called. */
  measure(source: () => number): () => void {
    this.sources.add(source);
    return () => this.sources.delete(source);
  }
}

export const authRevocationListSize: MetricDefinition<MeasuredGauge> = {
  name: 'auth_revocation_list_size',
  create: (registry) =>
    new MeasuredGauge(
      'auth_revocation_list_size',
      'Entries in the in-memory revocation list (revoked token ids and per-user cut-offs).',
      registry,
    ),
};

export type LoginFailureReason = 'invalid_credentials' | 'throttled' | 'not_approved' | 'invalid_client';

export const authLoginFailures: MetricDefinition<Counter<'reason'>> = {
  name: 'auth_login_failures_total',
  create: (registry) =>
    new Counter({
      name: 'auth_login_failures_total',
      help: 'Failed password sign-ins and client authentications, by reason.',
      labelNames: ['reason'],
      registers: [registry],
    }),
};

export const authLockouts: MetricDefinition<Counter> = {
  name: 'auth_lockouts_total',
  create: (registry) =>
    new Counter({
      name: 'auth_lockouts_total',
      help: 'Locks armed by brute-force protection (a source locked out of an account or client, an account held back).',
      registers: [registry],
    }),
};

/** Counted exactly once from `track` until the response closes, however it closes. */
export class OpenStreams {
  private readonly gauge: Gauge.Internal<'kind'>;

  constructor(metrics: Metrics, kind: SseStreamKind) {
    this.gauge = metrics.metric(sseStreamsActive).labels(kind);
    // The series exists (at 0) before the first stream opens.
    this.gauge.inc(0);
  }

  track(response: ServerResponse): void {
    if (response.closed) return;
    this.gauge.inc();
    response.once('close', () => this.gauge.dec());
  }
}
