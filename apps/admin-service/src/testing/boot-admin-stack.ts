/* eslint-disable @nx/enforce-module-boundaries -- the admin tests run auth-service and chat-service beside admin-service, as a distributed install does (the platform app imports the same root modules). */
import { AuthServiceModule } from '@fed/apps/auth-service';
import { ChatServiceModule } from '@fed/apps/chat-service';
import { type ServiceName, loadConfig, testServiceUrls } from '@fed/config';
import { ClientsService, type NewUser, UsersService } from '@fed/identity';
import { createLogger } from '@fed/observability';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { type RunningService, createServiceApp } from '@fed/server';
import { deleteRedisKeys, freePort, signIn } from '@fed/testing';
import { type Type } from '@nestjs/common';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DataSource } from 'typeorm';
import { AdminServiceModule } from '../admin-service.module';

export const PASSWORD = 'correct horse battery staple';
const REDIRECT_URI = 'https://console.example.com/callback';
export const ADMIN_SCOPES = 'openid users:read users:manage master:manage logs:read chat:history';

/** auth-, admin- and chat-service as separate Nest apps in one process, sharing database, Redis and JWKS URL. */
export interface AdminStack {
  database: TestDatabase;
  auth: RunningService;
  admin: RunningService;
  chat: RunningService;
  users: UsersService;
  dataSource: DataSource;
  /** An approved user `<login>@example.com` (username and name `login`) with the test password. */
  createUser(login: string, fields?: Partial<NewUser>): Promise<string>;
  /** The user's access token through the real Authorization Code flow, with `scope`. */
  signIn(login: string, scope?: string): Promise<{ accessToken: string; refreshToken: string }>;
  refresh(refreshToken: string): Promise<number>;
  close(): Promise<void>;
}

export async function bootAdminStack(
  // `env` is given to all three services (`EDITION=marketplace`).
  // `adminEnv` is admin-service's alone (`KEY_ENCRYPTION_KEY: ''`: one without auth-service's key).
  options: { adminFeatures?: Type[]; env?: Record<string, string>; adminEnv?: Record<string, string> } = {},
): Promise<AdminStack> {
  const redis = { url: testServiceUrls().redisUrl, keyPrefix: `test:${randomUUID().slice(0, 8)}:` };
  const database = await createTestDatabase();
  const blobDir = mkdtempSync(path.join(tmpdir(), 'fed-admin-blobs-'));
  const started: RunningService[] = [];
  try {
    const authPort = await freePort();
    // auth-service's key, which admin-service needs to rotate or revoke signing keys and seal providers' secrets.
    const keyEncryptionKey = randomBytes(32).toString('base64');
    const auth = await start('auth-service', [AuthServiceModule], {
      PORT: String(authPort),
      PUBLIC_URL: `http://127.0.0.1:${authPort}`,
      KEY_ENCRYPTION_KEY: keyEncryptionKey,
    });
    started.push(auth);
    const other = { AUTH_URL: auth.config.auth.authUrl };
    // admin-service publishes library files into the blobs chat-service reads, as a distributed install shares the volume.
    const admin = await start('admin-service', options.adminFeatures ?? [AdminServiceModule], {
      ...other,
      BLOB_DIR: blobDir,
      KEY_ENCRYPTION_KEY: keyEncryptionKey,
      ...options.adminEnv,
    });
    started.push(admin);
    const chat = await start('chat-service', [ChatServiceModule], { ...other, BLOB_DIR: blobDir });
    started.push(chat);

    const clientSecret = (
      await auth.nest.get(ClientsService).create({
        clientId: 'console',
        name: 'console',
        grantTypes: ['authorization_code', 'refresh_token'],
        scopes: ADMIN_SCOPES.split(' ').filter((scope) => scope !== 'openid'),
        redirectUris: [REDIRECT_URI],
        consentRequired: false,
        // An admin console: its admin users hold the management scopes (the role rule).
        allowManagementScopes: true,
      })
    ).clientSecret;
    const users = auth.nest.get(UsersService);

    return {
      database,
      auth,
      admin,
      chat,
      users,
      dataSource: auth.nest.get(DataSource),
      createUser: async (login, fields = {}) =>
        (
          await users.create({
            email: `${login}@example.com`,
            username: login,
            displayName: login,
            password: PASSWORD,
            status: 'approved',
            ...fields,
          })
        ).user.id,
      signIn: async (login, scope = ADMIN_SCOPES) => {
        const tokens = await signIn({
          serviceUrl: auth.url,
          issuer: auth.config.auth.issuer,
          clientId: 'console',
          clientSecret,
          redirectUri: REDIRECT_URI,
          login,
          password: PASSWORD,
          scope,
        });
        return { accessToken: tokens.access_token, refreshToken: tokens.refresh_token as string };
      },
      refresh: async (refreshToken) =>
        (
          await fetch(`${auth.url}/federation/auth/v1/token`, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({
              grant_type: 'refresh_token',
              refresh_token: refreshToken,
              client_id: 'console',
              client_secret: clientSecret,
            }),
          })
        ).status,
      close: () => stop(),
    };
  } catch (error) {
    await stop();
    throw error;
  }

  async function start(app: ServiceName, features: Type[], env: Record<string, string>): Promise<RunningService> {
    const config = loadConfig(app, {
      DATABASE_URL: database.url,
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: redis.keyPrefix,
      HOST: '127.0.0.1',
      PORT: String(await freePort()),
      ...options.env,
      ...env,
    });
    return createServiceApp({ app, features, config, logger: createLogger({ service: app, level: 'silent' }) });
  }

  async function stop(): Promise<void> {
    for (const service of started.reverse()) await service.shutdown('test');
    await database.drop();
    await deleteRedisKeys(redis.url, redis.keyPrefix);
    rmSync(blobDir, { recursive: true, force: true });
  }
}

export interface AdminCall {
  status: number;
  body: Record<string, unknown> & { error?: { type: string; code: string; message: string } };
}

export async function call(
  service: RunningService,
  method: string,
  pathAndQuery: string,
  token: string | undefined,
  body?: unknown,
): Promise<AdminCall> {
  const res = await fetch(`${service.url}${pathAndQuery}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as AdminCall['body']) : {} };
}
