import { type IncomingMessage, type ServerResponse } from 'node:http';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { metricsAcrossWorkers } from './worker-metrics';

/**
 * Made once per registry on first use, so in `platform`, where every feature shares one registry, features
 * count into the same series. docs/operations.md lists them all.
 */
export interface MetricDefinition<T> {
  readonly name: string;
  create(registry: Registry): T;
}

/** Never the global registry, so apps in one process never clash. */
export class Metrics {
  readonly registry = new Registry();
  readonly httpDuration: Histogram<'method' | 'route' | 'status_code'>;
  readonly httpRequests: Counter<'method' | 'route' | 'status_code'>;
  private readonly defined = new Map<string, unknown>();
  private readonly renderAll: (() => Promise<string>) | undefined;

  /** `acrossWorkers`: renders every worker's metrics summed, collected by the primary (worker-metrics.ts). */
  constructor(service: string, options: { defaultMetrics?: boolean; acrossWorkers?: boolean } = {}) {
    this.registry.setDefaultLabels({ service });
    if (options.acrossWorkers) this.renderAll = metricsAcrossWorkers(this.registry);
    if (options.defaultMetrics !== false) collectDefaultMetrics({ register: this.registry });
    this.httpDuration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time from request start to response end, by route template.',
      labelNames: ['method', 'route', 'status_code'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [this.registry],
    });
    this.httpRequests = new Counter({
      name: 'http_requests_total',
      help: 'Requests answered, by route template.',
      labelNames: ['method', 'route', 'status_code'],
      registers: [this.registry],
    });
  }

  metric<T>(definition: MetricDefinition<T>): T {
    let metric = this.defined.get(definition.name) as T | undefined;
    if (metric === undefined) {
      metric = definition.create(this.registry);
      this.defined.set(definition.name, metric);
    }
    return metric;
  }

  /** By route template, so cardinality stays bounded. */
  httpMiddleware() {
    return (req: IncomingMessage, res: ServerResponse, next: () => void) => {
      const started = process.hrtime.bigint();
      res.once('finish', () => {
        const routed = req as IncomingMessage & { route?: { path?: unknown }; baseUrl?: string };
        const template =
          typeof routed.route?.path === 'string' ? `${routed.baseUrl ?? ''}${routed.route.path}` : 'unmatched';
        const labels = { method: req.method ?? 'GET', route: template, status_code: String(res.statusCode) };
        this.httpDuration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
        this.httpRequests.inc(labels);
      });
      next();
    };
  }

  async render(): Promise<{ contentType: string; body: string }> {
    const body = this.renderAll ? await this.renderAll() : await this.registry.metrics();
    return { contentType: this.registry.contentType, body };
  }
}
