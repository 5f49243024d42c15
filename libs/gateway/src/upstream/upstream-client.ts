import { Pool } from 'undici';
import { type Deployment, type Provider } from '../routing/routing-table';

/** What the gateway asks of a provider. */
export type UpstreamEndpoint = 'chat' | 'messages' | 'count_tokens' | 'embeddings' | 'responses';

/** Headers of the client that reach a messages-family provider unchanged. */
export interface ForwardedHeaders {
  anthropicVersion?: string;
  anthropicBeta?: string;
}

export interface UpstreamAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: AsyncIterable<Buffer>;
  /** Reads and drops the rest of the body, so the connection can be reused. */
  discard(): Promise<void>;
}

/** The first value of one of the answer's headers. */
export function headerOf(answer: Pick<UpstreamAnswer, 'headers'>, name: string): string | undefined {
  const value = answer.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export const DEFAULT_ANTHROPIC_VERSION = '2023-06-01';

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

/**
 * HTTP to providers through undici pools (one per origin and size), kept alive between calls:
 * `request` hands back the body as a stream, read as it arrives, never buffered here.
 */
export class UpstreamClient {
  private readonly pools = new Map<string, Pool>();

  async send(
    deployment: Deployment,
    endpoint: UpstreamEndpoint,
    body: string,
    forwarded: ForwardedHeaders,
    signal: AbortSignal,
  ): Promise<UpstreamAnswer> {
    const provider = deployment.provider;
    const payload = Buffer.from(body, 'utf8');
    const answer = await this.poolFor(provider).request({
      method: 'POST',
      path: pathOf(provider, deployment, endpoint),
      headers: headersOf(provider, forwarded, payload.length),
      body: payload,
      signal,
      headersTimeout: provider.timeoutMs,
      bodyTimeout: provider.timeoutMs,
    });
    return {
      status: answer.statusCode,
      headers: answer.headers,
      body: answer.body,
      discard: () => answer.body.dump().then(() => undefined),
    };
  }

  async close(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((pool) => pool.close().catch(() => pool.destroy())));
  }

  private poolFor(provider: Provider): Pool {
    const key = `${provider.origin} ${provider.connections}`;
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
