import { type AppConfig, type ServiceConfig, loadConfig } from '@fed/config';
import { GatewayModule, apiKeysServiceFor, gatewayEntities } from '@fed/gateway';
import { createLogger } from '@fed/observability';
import { createDataSource, dataSourceOptions } from '@fed/persistence';
import { type RunningService, createServiceApp } from '@fed/server';
import { freePort } from '@fed/testing';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { AgentRuntimeModule } from '../agent-runtime.module';

/** Gateway models of the two agent levels, both routed to the scripted upstream. */
export const AGENT_MODELS = { default: 'agent-default', high_performance: 'agent-high' } as const;
/** What the scripted upstream is asked for, per agent level. */
export const UPSTREAM_MODELS = { default: 'upstream-default', high_performance: 'upstream-high' } as const;

export interface AgentRuntimeBoot {
  databaseUrl: string;
  upstreamUrl: string;
  /** Over the test defaults (no coalescing changes, 4 steps, 30 s timeout, no drain on close). */
  agent?: Partial<ServiceConfig['agent']>;
  env?: Record<string, string>;
}

export interface RunningAgentRuntime {
  service: RunningService<AppConfig<'agent-runtime'>>;
  config: AppConfig<'agent-runtime'>;
  apiKey: string;
  close(): Promise<void>;
}

/** agent-runtime beside the gateway, which routes both levels to the scripted upstream once (no retry or fallback). */
export async function bootAgentRuntime(options: AgentRuntimeBoot): Promise<RunningAgentRuntime> {
  const port = await freePort();
  const apiKey = await createGatewayKey(options.databaseUrl);
  const routingFile = path.join(mkdtempSync(path.join(tmpdir(), 'agent-runtime-')), 'routing.yaml');
  writeFileSync(
    routingFile,
    stringify({
      providers: [{ name: 'scripted', type: 'openai', baseUrl: `${options.upstreamUrl}/v1`, apiKey: 'sk-upstream' }],
      models: [
        { name: AGENT_MODELS.default, deployments: [{ provider: 'scripted', model: UPSTREAM_MODELS.default }] },
        {
          name: AGENT_MODELS.high_performance,
          deployments: [{ provider: 'scripted', model: UPSTREAM_MODELS.high_performance }],
        },
      ],
      retries: { attempts: 1 },
    }),
  );
  // Each boot its own blob directory, so no test writes to the distributed default (/var/lib/...).
  const blobDir = mkdtempSync(path.join(tmpdir(), 'fed-blobs-'));
  const loaded = loadConfig('agent-runtime', {
    DATABASE_URL: options.databaseUrl,
    REDIS_URL: 'redis://unused:6379',
    HOST: '127.0.0.1',
    PORT: String(port),
    AGENT_GATEWAY_URL: `http://127.0.0.1:${port}/llm/v1`,
    AGENT_GATEWAY_API_KEY: apiKey,
    AGENT_MODEL: AGENT_MODELS.default,
    AGENT_MODEL_HIGH_PERFORMANCE: AGENT_MODELS.high_performance,
    AGENT_MAX_STEPS: '4',
    // Closing hands running turns back at once, as tests expect; the drain's tests set `agent.drainMs`.
    AGENT_DRAIN_SECONDS: '0',
    BLOB_DIR: blobDir,
    ...options.env,
  });
  // Not a section of agent-runtime: the gateway beside it is a test arrangement, configured as llm-gateway's.
  const { gateway } = loadConfig('llm-gateway', {
    DATABASE_URL: options.databaseUrl,
    REDIS_URL: 'redis://unused:6379',
    LLM_GATEWAY_ROUTING_FILE: routingFile,
    LLM_GATEWAY_LOG_FLUSH_MS: '50',
  });
  const config: AppConfig<'agent-runtime'> & Pick<ServiceConfig, 'gateway'> = {
    ...loaded,
    redis: { ...loaded.redis, url: undefined },
    gateway,
    agent: { ...loaded.agent, ...options.agent },
  };
  const service = await createServiceApp({
    app: 'agent-runtime',
    features: [AgentRuntimeModule, GatewayModule],
    config,
    logger: createLogger({ service: 'agent-runtime', level: 'silent' }),
  });
  return {
    service,
    config,
    apiKey,
    close: async () => {
      await service.shutdown('test');
      rmSync(blobDir, { recursive: true, force: true });
    },
  };
}

async function createGatewayKey(databaseUrl: string): Promise<string> {
  const dataSource = await createDataSource(
    dataSourceOptions({
      url: databaseUrl,
      poolSize: 1,
      applicationName: 'agent-runtime-test',
      entities: gatewayEntities,
    }),
  );
  try {
    const keys = apiKeysServiceFor(dataSource, { keyPrefix: 'fed_' });
    return (await keys.create({ name: 'agent-runtime' })).apiKey;
  } finally {
    await dataSource.destroy();
  }
}
