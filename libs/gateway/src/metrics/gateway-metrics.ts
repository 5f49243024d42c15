import {
  type Metrics,
  type UpstreamErrorReason,
  type UpstreamStatusClass,
  gatewayCost,
  gatewayTokens,
  gatewayUpstreamDuration,
  gatewayUpstreamErrors,
} from '@fed/observability';
import { type TokenUsage } from '../usage/token-usage';

type Child = { inc(value?: number): void };
type Timer = { observe(value: number): void };

interface UsageSeries {
  input: Child;
  output: Child;
  cost: Child;
}

interface ProviderSeries {
  duration: Record<UpstreamStatusClass, Timer>;
  errors: Record<UpstreamErrorReason, Child>;
}

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** Label sets are bounded by the routing file and the keys; children are cached, so a request costs a few Map reads. */
export class GatewayMetrics {
  private readonly tokens;
  private readonly cost;
  private readonly upstreamDuration;
  private readonly upstreamErrors;
  private readonly usageSeries = new Map<string, Map<string, UsageSeries>>();
  private readonly providerSeries = new Map<string, ProviderSeries>();

  constructor(metrics: Metrics) {
    this.tokens = metrics.metric(gatewayTokens);
    this.cost = metrics.metric(gatewayCost);
    this.upstreamDuration = metrics.metric(gatewayUpstreamDuration);
    this.upstreamErrors = metrics.metric(gatewayUpstreamErrors);
  }

  /** `key` is a virtual key id or a client id, never a secret. */
  billed(model: string, key: string, usage: TokenUsage | null, costUsd: number | null): void {
    const series = this.usageOf(model, key);
    if (usage) {
      series.input.inc(usage.inputTokens);
      series.output.inc(usage.outputTokens);
    }
    if (costUsd) series.cost.inc(costUsd);
  }

  /** 4xx and 5xx count as errors too. */
  answered(provider: string, status: number, seconds: number): void {
    const series = this.providerOf(provider);
    if (status >= 500) {
      series.duration['5xx'].observe(seconds);
      series.errors.status_5xx.inc();
    } else if (status >= 400) {
      series.duration['4xx'].observe(seconds);
      series.errors.status_4xx.inc();
    } else series.duration[status >= 300 ? '3xx' : '2xx'].observe(seconds);
  }

  /** Connection refused or reset, or timeout. */
  unanswered(provider: string, error: unknown, seconds: number): void {
    const series = this.providerOf(provider);
    series.duration.error.observe(seconds);
    this.brokeOff(provider, error);
  }

  /** A failure without an attempt of its own: a streamed answer that broke off. */
  brokeOff(provider: string, error: unknown): void {
    const code = (error as { code?: unknown } | null)?.code;
    this.providerOf(provider).errors[
      typeof code === 'string' && TIMEOUT_CODES.has(code) ? 'timeout' : 'connection'
    ].inc();
  }

  private usageOf(model: string, key: string): UsageSeries {
    let byKey = this.usageSeries.get(model);
    if (!byKey) {
      byKey = new Map();
      this.usageSeries.set(model, byKey);
    }
    let series = byKey.get(key);
    if (!series) {
      series = {
        input: this.tokens.labels({ model, key, direction: 'input' }),
        output: this.tokens.labels({ model, key, direction: 'output' }),
        cost: this.cost.labels({ model, key }),
      };
      byKey.set(key, series);
    }
    return series;
  }

  private providerOf(provider: string): ProviderSeries {
    let series = this.providerSeries.get(provider);
    if (!series) {
      const duration = (status_class: UpstreamStatusClass) => this.upstreamDuration.labels({ provider, status_class });
      const errors = (reason: UpstreamErrorReason) => this.upstreamErrors.labels({ provider, reason });
      series = {
        duration: {
          '2xx': duration('2xx'),
          '3xx': duration('3xx'),
          '4xx': duration('4xx'),
          '5xx': duration('5xx'),
          error: duration('error'),
        },
        errors: {
          status_4xx: errors('status_4xx'),
          status_5xx: errors('status_5xx'),
          timeout: errors('timeout'),
          connection: errors('connection'),
        },
      };
      this.providerSeries.set(provider, series);
    }
    return series;
  }
}
