import { type Type } from '@nestjs/common';
import { ClientsService, type NewUser, UsersService } from '@fed/identity';
import { type ServiceName, loadConfig } from '@fed/config';
import { createLogger } from '@fed/observability';
import { type RunningService, createServiceApp } from '@fed/server';
import { freePort } from '@fed/testing';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { SignInModule } from '../sign-in.module';

export interface AuthServiceBoot {
  databaseUrl: string;
  /** One key per database: the signing key made at a first start must open at the next. */
  encryptionKey?: string;
  env?: Record<string, string>;
  features?: Type[];
  /** Instead of the in-process bus. */
  redis?: { url: string; keyPrefix: string };
}

/** As main.ts starts it, on a free loopback port with a silent log. */
export async function bootAuthService(options: AuthServiceBoot): Promise<RunningService> {
  const port = await freePort();
  const config = loadConfig('auth-service', {
    DATABASE_URL: options.databaseUrl,
    REDIS_URL: options.redis?.url ?? 'redis://unused:6379',
    ...(options.redis ? { REDIS_KEY_PREFIX: options.redis.keyPrefix } : {}),
    KEY_ENCRYPTION_KEY: options.encryptionKey ?? randomBytes(32).toString('base64'),
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    ...options.env,
  });
  return createServiceApp({
    app: 'auth-service',
    features: [SignInModule, ...(options.features ?? [])],
    config: options.redis ? config : { ...config, redis: { ...config.redis, url: undefined } },
    logger: createLogger({ service: 'auth-service', level: 'silent' }),
  });
}

/** Its own Nest app, bus connections, JWKS cache and revocation list, sharing only database, Redis and JWKS URL. */
export async function bootOtherService(
  app: Exclude<ServiceName, 'auth-service'>,
  options: { auth: RunningService; databaseUrl: string; redis: { url: string; keyPrefix: string }; features: Type[] },
): Promise<RunningService> {
  const config = loadConfig(app, {
    DATABASE_URL: options.databaseUrl,
    REDIS_URL: options.redis.url,
    REDIS_KEY_PREFIX: options.redis.keyPrefix,
    HOST: '127.0.0.1',
    PORT: String(await freePort()),
    AUTH_URL: options.auth.config.auth.authUrl,
  });
  return createServiceApp({
    app,
    features: options.features,
    config,
    logger: createLogger({ service: app, level: 'silent' }),
  });
}

export function registryOf(service: RunningService) {
  return {
    dataSource: service.nest.get(DataSource),
    clients: service.nest.get(ClientsService),
    users: service.nest.get(UsersService),
  };
}

export interface TestTenant {
  id: string;
  name: string;
  type: 'enterprise' | 'saas';
  endpoint: string;
  enabled: boolean;
}

/** No service creates a tenant with a chosen id: realm files match tenants by name. */
export async function insertTenant(service: RunningService, tenant: TestTenant): Promise<void> {
  await service.nest
    .get(DataSource)
    .query(
      'INSERT INTO "identity"."tenants" ("id", "name", "type", "endpoint", "enabled", "created_at") VALUES ($1, $2, $3, $4, $5, now())',
      [tenant.id, tenant.name, tenant.type, tenant.endpoint, tenant.enabled],
    );
}

/** An approved user whose e-mail (`<login>@example.com`), username and display name come from `login`. */
export async function createApprovedUser(
  users: UsersService,
  login: string,
  fields: Pick<NewUser, 'password'> & Partial<NewUser>,
): Promise<void> {
  await users.create({
    email: `${login}@example.com`,
    username: login,
    displayName: login,
    status: 'approved',
    ...fields,
  });
}
