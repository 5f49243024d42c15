import { type Dispatcher, Pool } from 'undici';
import { type Readable } from 'node:stream';
import { type GatewayMetrics } from '../metrics/gateway-metrics';
import { type Deployment, type Provider } from '../routing/routing-table';
import { ConnectionSlots } from './connection-slots';

export type UpstreamEndpoint = 'chat' | 'messages' | 'count_tokens' | 'embeddings' | 'responses';

export interface ForwardedHeaders {
  anthropicVersion?: string;
  anthropicBeta?: string;
}

export interface UpstreamAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Readable;
  /** So the connection can be reused. */
  discard(): Promise<void>;
  /** Not the client's doing: counted against the provider. */
  brokeOff?(error: unknown): void;
}

export function headerOf(answer: Pick<UpstreamAnswer, 'headers'>, name: string): string | undefined {
  const value = answer.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export const DEFAULT_ANTHROPIC_VERSION = '2023-06-01';

const NO_SLOT = () => undefined;

function pathOf(provider: Provider, deployment: Deployment, endpoint: UpstreamEndpoint): string {
  const base = provider.basePath;
  if (provider.type === 'anthropic') {
    return endpoint === 'count_tokens' ? `${base}/v1/messages/count_tokens` : `${base}/v1/messages`;
  }
  const suffix = endpoint === 'embeddings' ? 'embeddings' : endpoint === 'responses' ? 'responses' : 'chat/completions';
  if (provider.type === 'azure-openai') {
    const version = encodeURIComponent(provider.apiVersion ?? '');
    if (endpoint === 'responses') return `${base}/openai/responses?api-version=${version}`;
    return `${base}/openai/deployments/${encodeURIComponent(deployment.name)}/${suffix}?api-version=${version}`;
  }
  return `${base}/${suffix}`;
}

function headersOf(provider: Provider, forwarded: ForwardedHeaders, bodyLength: number): Record<string, string> {
  const headers: Record<string, string> = {
    ...provider.headers,
    'content-type': 'application/json',
    'content-length': String(bodyLength),
    accept: 'application/json, text/event-stream',
  };
  if (provider.type === 'anthropic') {
    if (provider.apiKey) headers['x-api-key'] = provider.apiKey;
    headers['anthropic-version'] = forwarded.anthropicVersion ?? DEFAULT_ANTHROPIC_VERSION;
    if (forwarded.anthropicBeta) headers['anthropic-beta'] = forwarded.anthropicBeta;
  } else if (provider.type === 'azure-openai') {
    if (provider.apiKey) headers['api-key'] = provider.apiKey;
  } else if (provider.apiKey) {
    headers.authorization = `Bearer ${provider.apiKey}`;
  }
  return headers;
}

/** undici pools per origin and size; bodies are streamed, never buffered here. */
export class UpstreamClient {
  private readonly pools = new Map<string, Pool>();
  private readonly slots = new Map<string, ConnectionSlots>();

  /** Without `metrics` (tools, tests), attempts are not counted. */
  constructor(private readonly metrics?: GatewayMetrics) {}

  async send(
    deployment: Deployment,
    endpoint: UpstreamEndpoint,
    body: string,
    forwarded: ForwardedHeaders,
    signal: AbortSignal,
  ): Promise<UpstreamAnswer> {
    const provider = deployment.provider;
    const payload = Buffer.from(body, 'utf8');
    const release =
      provider.connections === null ? NO_SLOT : await this.slotFor(provider, provider.connections, signal);
    const started = performance.now();
    let answer: Dispatcher.ResponseData;
    try {
      answer = await this.poolFor(provider).request({
        method: 'POST',
        path: pathOf(provider, deployment, endpoint),
        headers: headersOf(provider, forwarded, payload.length),
        body: payload,
        signal,
        headersTimeout: provider.timeoutMs,
        bodyTimeout: provider.timeoutMs,
      });
    } catch (error) {
      release();
      // A client that went away is not the provider's failure.
      if (!signal.aborted) this.metrics?.unanswered(provider.name, error, (performance.now() - started) / 1000);
      throw error;
    }
    // The connection is the call's until its body is read, dumped or destroyed.
    answer.body.once('close', release);
    const metrics = this.metrics;
    metrics?.answered(provider.name, answer.statusCode, (performance.now() - started) / 1000);
    return {
      status: answer.statusCode,
      headers: answer.headers,
      body: answer.body,
      discard: () => answer.body.dump().then(() => undefined),
      ...(metrics ? { brokeOff: (error: unknown) => metrics.brokeOff(provider.name, error) } : {}),
    };
  }

  async close(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    this.slots.clear();
    await Promise.all(pools.map((pool) => pool.close().catch(() => pool.destroy())));
  }

  private slotFor(provider: Provider, cap: number, signal: AbortSignal): Promise<() => void> {
    // Keyed like the pools: providers sharing an origin and a cap share its connections.
    const key = `${provider.origin} ${cap}`;
    let slots = this.slots.get(key);
    if (!slots) {
      slots = new ConnectionSlots(provider.name, cap);
      this.slots.set(key, slots);
    }
    return slots.acquire(provider.queueTimeoutMs, signal);
  }

  private poolFor(provider: Provider): Pool {
    const key = `${provider.origin} ${provider.connections ?? 'uncapped'}`;
    let pool = this.pools.get(key);
    if (!pool) {
      pool = new Pool(provider.origin, {
        connections: provider.connections,
        keepAliveTimeout: 30_000,
        keepAliveMaxTimeout: 600_000,
        connect: { timeout: 10_000 },
      });
      this.pools.set(key, pool);
    }
    return pool;
  }
}
