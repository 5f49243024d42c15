import { JwksServer, TestTokenIssuer } from '@fed/auth/testing';
import { type AppConfig, loadConfig } from '@fed/config';
import { createLogger } from '@fed/observability';
import { type RunningService, createServiceApp } from '@fed/server';
import { freePort } from '@fed/testing';
import { type Type } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ChatServiceModule } from '../chat-service.module';

export interface ChatServiceBoot {
  databaseUrl: string;
  /** Use this Redis (with a key prefix of the test's own) instead of the in-process bus. */
  redis?: { url: string; keyPrefix: string };
  env?: Record<string, string>;
  features?: Type[];
}

export interface TestUser {
  userId: string;
  /** An access token of this user with `scope` (default: the chat scopes). */
  token(scope?: string): Promise<string>;
}

export interface RunningChatService {
  service: RunningService<AppConfig<'chat-service'>>;
  /** `{base_url}/api`: the spec's paths follow it (`/v1/conversations`). */
  api: string;
  issuer: TestTokenIssuer;
  /** A new user (a fresh `sub`) of the test issuer's tenant (`TEST_TENANT_ID`). */
  user(userId?: string): TestUser;
  close(): Promise<void>;
}

export const CHAT_SCOPES = 'openid profile chat:exec chat:history chat:file';

/** chat-service as main.ts starts it, on a loopback port, trusting a test issuer's JWKS (AUTH_JWKS_URL). */
export async function bootChatService(options: ChatServiceBoot): Promise<RunningChatService> {
  const issuer = await TestTokenIssuer.create();
  const jwks = await JwksServer.start(() => issuer.jwks());
  const port = await freePort();
  // Each boot its own blob directory, so no test writes to the distributed default (/var/lib/...).
  const blobDir = mkdtempSync(path.join(tmpdir(), 'fed-blobs-'));
  const config = loadConfig('chat-service', {
    DATABASE_URL: options.databaseUrl,
    REDIS_URL: options.redis?.url ?? 'redis://unused:6379',
    ...(options.redis ? { REDIS_KEY_PREFIX: options.redis.keyPrefix } : {}),
    HOST: '127.0.0.1',
    PORT: String(port),
    AUTH_URL: issuer.issuer.replace(/\/realms\/federation$/, ''),
    AUTH_JWKS_URL: jwks.url,
    BLOB_DIR: blobDir,
    ...options.env,
  });
  const service = await createServiceApp({
    app: 'chat-service',
    features: [ChatServiceModule, ...(options.features ?? [])],
    config: options.redis ? config : { ...config, redis: { ...config.redis, url: undefined } },
    logger: createLogger({ service: 'chat-service', level: 'silent' }),
  });
  return {
    service,
    api: `${service.url}/api`,
    issuer,
    user: (userId = randomUUID()) => ({
      userId,
      token: (scope = CHAT_SCOPES) => issuer.mint({ sub: userId, scope }),
    }),
    close: async () => {
      await service.shutdown('test');
      await jwks.close();
      await issuer.close();
      rmSync(blobDir, { recursive: true, force: true });
    },
  };
}
