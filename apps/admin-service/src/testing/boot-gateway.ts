import { loadConfig } from '@fed/config';
import { GatewayModule } from '@fed/gateway';
import { createLogger } from '@fed/observability';
import { type RunningService, createServiceApp } from '@fed/server';
import { freePort } from '@fed/testing';

/** llm-gateway as its main.ts starts it (its module, GatewayModule), on a test's database, writing its log every 50 ms. */
export async function bootGateway(
  databaseUrl: string,
  // AUTH_URL: the realm whose client-credentials tokens the gateway accepts.
  env: Record<string, string> = {},
  // This Redis (the admin stack's, with its key prefix) instead of the in-process bus: the gateway hears its signals.
  redis?: { url?: string; keyPrefix: string },
): Promise<{ service: RunningService; keyPrefix: string }> {
  const port = await freePort();
  const config = loadConfig('llm-gateway', {
    DATABASE_URL: databaseUrl,
    REDIS_URL: 'redis://unused:6379',
    HOST: '127.0.0.1',
    PORT: String(port),
    LLM_GATEWAY_LOG_FLUSH_MS: '50',
    ...env,
  });
  const service = await createServiceApp({
    app: 'llm-gateway',
    features: [GatewayModule],
    config: { ...config, redis: redis ? { ...config.redis, ...redis } : { ...config.redis, url: undefined } },
    logger: createLogger({ service: 'llm-gateway', level: 'silent' }),
  });
  return { service, keyPrefix: config.gateway.keyPrefix };
}
