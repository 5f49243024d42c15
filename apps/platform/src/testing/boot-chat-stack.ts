import { JwksServer, TestTokenIssuer } from '@fed/auth/testing';
import { loadConfig } from '@fed/config';
import { isManagementScope } from '@fed/contracts';
import { apiKeysServiceFor, gatewayEntities } from '@fed/gateway';
import { createLogger } from '@fed/observability';
import { createDataSource, dataSourceOptions } from '@fed/persistence';
import { type RunningService, createServiceApp } from '@fed/server';
import { freePort } from '@fed/testing';
import { type Type } from '@nestjs/common';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { AgentRuntimeModule, ChatServiceModule, LlmGatewayModule } from '../platform-features';

export const CHAT_MODEL = 'federation-agent';
export const UPSTREAM_MODEL = 'upstream-model';

export interface ChatStackOptions {
  /** Share this Redis (with a key prefix of the test's own) instead of the in-process bus. */
  redis?: { url: string; keyPrefix: string };
  /** Run the agent in this process (default); false: chat-service and llm-gateway only. */
  runtime?: boolean;
  env?: Record<string, string>;
  /** More feature modules in the same process (e.g. an admin API reading what the turns wrote). */
  features?: Type[];
}

export interface ChatStack {
  service: RunningService;
  /** The agent's key at the gateway (a runtime started elsewhere uses it too). */
  gatewayKey: string;
  api: string;
  userToken(userId?: string): Promise<string>;
  /** A test-issuer token with these scopes, of `userId` (default: a new user); an admin's for a management scope. */
  token(scope: string, userId?: string, role?: 'admin' | 'user'): Promise<string>;
  /** An access token of the test issuer: a new user's claims, with these over them (an `aud`, say). */
  mint(claims: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

/** chat-service, agent-runtime and llm-gateway in one process as `platform` runs them, over a scripted upstream. */
export async function bootChatStack(
  databaseUrl: string,
  upstreamUrl: string,
  options: ChatStackOptions = {},
): Promise<ChatStack> {
  const issuer = await TestTokenIssuer.create();
  const jwks = await JwksServer.start(() => issuer.jwks());
  const port = await freePort();
  const routingFile = path.join(mkdtempSync(path.join(tmpdir(), 'chat-stack-')), 'routing.yaml');
  writeFileSync(
    routingFile,
    stringify({
      providers: [{ name: 'scripted', type: 'openai', baseUrl: `${upstreamUrl}/v1`, apiKey: 'sk-upstream' }],
      models: [{ name: 'agent-model', deployments: [{ provider: 'scripted', model: UPSTREAM_MODEL }] }],
      retries: { attempts: 1 },
    }),
  );
  const gatewayKey = await createGatewayKey(databaseUrl);
  // Each boot its own blob directory, so no test writes to the distributed default (/var/lib/...).
  const blobDir = mkdtempSync(path.join(tmpdir(), 'fed-blobs-'));
  const config = loadConfig('platform', {
    DATABASE_URL: databaseUrl,
    ...(options.redis ? { REDIS_URL: options.redis.url, REDIS_KEY_PREFIX: options.redis.keyPrefix } : {}),
    HOST: '127.0.0.1',
    PORT: String(port),
    AUTH_URL: issuer.issuer.replace(/\/realms\/federation$/, ''),
    AUTH_JWKS_URL: jwks.url,
    LLM_GATEWAY_ROUTING_FILE: routingFile,
    AGENT_GATEWAY_API_KEY: gatewayKey,
    AGENT_MODEL: 'agent-model',
    AGENT_MODEL_HIGH_PERFORMANCE: 'agent-model',
    AGENT_COALESCE_MS: '5',
    // Closing a stack hands running turns back at once, as tests expect; the drain has tests of its own.
    AGENT_DRAIN_SECONDS: '0',
    BLOB_DIR: blobDir,
    ...options.env,
  });
  const service = await createServiceApp({
    app: 'platform',
    features:
      options.runtime === false
        ? [ChatServiceModule, LlmGatewayModule]
        : [ChatServiceModule, AgentRuntimeModule, LlmGatewayModule, ...(options.features ?? [])],
    config,
    logger: createLogger({ service: 'platform', level: 'silent' }),
  });
  return {
    service,
    gatewayKey,
    api: `${service.url}/api`,
    userToken: (userId = crypto.randomUUID()) =>
      issuer.mint({ sub: userId, scope: 'openid profile chat:exec chat:history chat:file' }),
    // A user holds a management scope only as an admin (the role rule), so such a token is an admin's.
    token: (scope, userId = crypto.randomUUID(), role = scope.split(' ').some(isManagementScope) ? 'admin' : 'user') =>
      issuer.mint({ sub: userId, scope, realm_access: { roles: [role] } }),
    mint: (claims) => issuer.mint({ sub: crypto.randomUUID(), ...claims }),
    close: async () => {
      await service.shutdown('test');
      await jwks.close();
      await issuer.close();
      rmSync(blobDir, { recursive: true, force: true });
    },
  };
}

async function createGatewayKey(databaseUrl: string): Promise<string> {
  const dataSource = await createDataSource(
    dataSourceOptions({ url: databaseUrl, poolSize: 1, applicationName: 'chat-stack-test', entities: gatewayEntities }),
  );
  try {
    return (await apiKeysServiceFor(dataSource, { keyPrefix: 'fed_' }).create({ name: 'agent' })).apiKey;
  } finally {
    await dataSource.destroy();
  }
}
