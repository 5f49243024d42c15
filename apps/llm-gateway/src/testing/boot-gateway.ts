import { loadConfig } from '@fed/config';
import { type ApiKeySettings, type ApiKeysService, apiKeysServiceFor } from '@fed/gateway';
import { createLogger } from '@fed/observability';
import { type RunningService, createServiceApp } from '@fed/server';
import { freePort } from '@fed/testing';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DataSource } from 'typeorm';
import { stringify } from 'yaml';
import { LlmGatewayModule } from '../llm-gateway.module';

export interface GatewayBoot {
  databaseUrl: string;
  /** The routing file's content (written to a temporary file), or none: the demo model only. */
  routing?: Record<string, unknown>;
  env?: Record<string, string>;
  /** Use this Redis (with a key prefix of the test's own) instead of the in-process bus. */
  redis?: { url: string; keyPrefix: string };
}

export interface RunningGateway {
  service: RunningService;
  /** `{base_url}/llm/v1`, what the official clients are given. */
  baseUrl: string;
  routingFile: string | undefined;
  keys: ApiKeysService;
  createKey(settings?: Partial<ApiKeySettings>): Promise<string>;
}

/** llm-gateway as its main.ts starts it, on a free loopback port, with a silent log. */
export async function bootGateway(options: GatewayBoot): Promise<RunningGateway> {
  const port = await freePort();
  let routingFile: string | undefined;
  if (options.routing) {
    routingFile = path.join(mkdtempSync(path.join(tmpdir(), 'gateway-')), 'routing.yaml');
    writeFileSync(routingFile, stringify(options.routing));
  }
  const config = loadConfig('llm-gateway', {
    DATABASE_URL: options.databaseUrl,
    REDIS_URL: options.redis?.url ?? 'redis://unused:6379',
    ...(options.redis ? { REDIS_KEY_PREFIX: options.redis.keyPrefix } : {}),
    HOST: '127.0.0.1',
    PORT: String(port),
    LLM_GATEWAY_LOG_FLUSH_MS: '50',
    ...(routingFile ? { LLM_GATEWAY_ROUTING_FILE: routingFile } : {}),
    ...options.env,
  });
  const service = await createServiceApp({
    app: 'llm-gateway',
    features: [LlmGatewayModule],
    config: options.redis ? config : { ...config, redis: { ...config.redis, url: undefined } },
    logger: createLogger({ service: 'llm-gateway', level: 'silent' }),
  });
  const keys = apiKeysServiceFor(service.nest.get(DataSource), {
    keyPrefix: config.gateway.keyPrefix,
  });
  return {
    service,
    baseUrl: `${service.url}/llm/v1`,
    routingFile,
    keys,
    createKey: async (settings = {}) => (await keys.create({ name: 'test', ...settings })).apiKey,
  };
}

/** Every gateway log row, oldest first, once the writer has flushed `atLeast` of them. */
export async function gatewayLogRows(
  gateway: RunningGateway,
  atLeast: number,
  timeoutMs = 5000,
): Promise<Record<string, unknown>[]> {
  const dataSource = gateway.service.nest.get(DataSource);
  const until = Date.now() + timeoutMs;
  for (;;) {
    const rows = (await dataSource.query(
      'SELECT * FROM "audit"."llm_gateway_logs" ORDER BY "created_at", "id"',
    )) as Record<string, unknown>[];
    if (rows.length >= atLeast || Date.now() > until) return rows;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The newest gateway log row that matches, once the writer has flushed it. */
export async function findLogRow(
  gateway: RunningGateway,
  matches: (row: Record<string, unknown>) => boolean,
  timeoutMs = 5000,
): Promise<Record<string, unknown> | undefined> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const found = (await gatewayLogRows(gateway, 0, 0)).filter(matches).at(-1);
    if (found || Date.now() > until) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
