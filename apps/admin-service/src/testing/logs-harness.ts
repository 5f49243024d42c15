import { AuditLogsModule, GatewayLogsModule, LogRetentionModule } from '@fed/audit';
import { loadConfig } from '@fed/config';
import { ClientsService, SigningKeysModule, UsersService } from '@fed/identity';
import { OidcModule } from '@fed/sign-in';
import { createLogger } from '@fed/observability';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { type RunningService, createServiceApp } from '@fed/server';
import { freePort, signIn } from '@fed/testing';
import { type Type } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';

// The log modules of admin-service (its module imports these), without the other features' modules:
// these tests do not depend on the users' and master data's configuration.
const LOG_MODULES = [AuditLogsModule, GatewayLogsModule, LogRetentionModule];
const REDIRECT_URI = 'https://admin.example.com/callback';
const PASSWORD = 'correct horse battery staple';

/** auth-service and admin-service's log modules on a fresh database, with clients `console` and `etl` for tests. */
export interface LogsHarness {
  database: TestDatabase;
  auth: RunningService;
  admin: RunningService;
  dataSource: DataSource;
  /** A user's access token through the login form (Authorization Code with PKCE); an admin of `tenantName`. */
  signInAs(login: string, scope: string, tenantName?: string): Promise<string>;
  /** A Client Credentials token of a client of `tenantName` (the default tenant) holding `scopes`. */
  serviceToken(scopes: string[], tenantName?: string): Promise<string>;
  get(path: string, token: string): Promise<Response>;
  close(): Promise<void>;
}

export async function bootLogsHarness(
  options: { adminFeatures?: Type[]; adminEnv?: Record<string, string> } = {},
): Promise<LogsHarness> {
  const database = await createTestDatabase();
  const auth = await boot('auth-service', database.url, [SigningKeysModule, OidcModule], {
    KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  });
  const admin = await boot('admin-service', database.url, [...LOG_MODULES, ...(options.adminFeatures ?? [])], {
    AUTH_URL: auth.config.auth.authUrl,
    ...options.adminEnv,
  });
  const clients = auth.nest.get(ClientsService);
  const users = auth.nest.get(UsersService);
  const { clientSecret: consoleSecret } = await clients.create({
    clientId: 'console',
    name: 'console',
    grantTypes: ['authorization_code'],
    scopes: ['logs:read', 'users:manage', 'users:read'],
    redirectUris: [REDIRECT_URI],
    consentRequired: false,
    allowManagementScopes: true,
  });
  let serviceClients = 0;
  const signedUp = new Set<string>();

  const harness: LogsHarness = {
    database,
    auth,
    admin,
    dataSource: admin.nest.get(DataSource),
    async signInAs(login, scope, tenantName) {
      if (!signedUp.has(login)) {
        signedUp.add(login);
        await users.create({
          email: `${login}@example.com`,
          username: login,
          displayName: login,
          status: 'approved',
          role: 'admin',
          password: PASSWORD,
          ...(tenantName ? { tenantName } : {}),
        });
      }
      const tokens = await signIn({
        serviceUrl: auth.url,
        issuer: auth.config.auth.issuer,
        clientId: 'console',
        clientSecret: consoleSecret,
        redirectUri: REDIRECT_URI,
        login,
        password: PASSWORD,
        scope: `openid ${scope}`,
      });
      return tokens.access_token;
    },
    async serviceToken(scopes, tenantName) {
      const clientId = `etl-${++serviceClients}`;
      const { clientSecret } = await clients.create({
        clientId,
        name: clientId,
        grantTypes: ['client_credentials'],
        scopes,
        ...(tenantName ? { tenantName } : {}),
      });
      const res = await fetch(`${auth.url}/federation/auth/v1/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: clientId,
          client_secret: clientSecret,
        }),
      });
      if (res.status !== 200) throw new Error(`token: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { access_token: string }).access_token;
    },
    get: (path, token) => fetch(`${admin.url}${path}`, { headers: { authorization: `Bearer ${token}` } }),
    async close() {
      await admin.shutdown('test');
      await auth.shutdown('test');
      await database.drop();
    },
  };
  return harness;
}

async function boot(
  app: 'auth-service' | 'admin-service',
  databaseUrl: string,
  features: Type[],
  env: Record<string, string>,
): Promise<RunningService> {
  const port = await freePort();
  const config = loadConfig(app, {
    DATABASE_URL: databaseUrl,
    REDIS_URL: 'redis://unused:6379',
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    ...env,
  });
  return createServiceApp({
    app,
    features,
    config: { ...config, redis: { ...config.redis, url: undefined } },
    logger: createLogger({ service: app, level: 'silent' }),
  });
}
