import 'reflect-metadata';
import { loadConfig, testServiceUrls } from '@fed/config';
import { ClientsService, RealmImportModule, SigningKeysModule, UsersService } from '@fed/identity';
import { OidcModule } from '@fed/sign-in';
import { createLogger } from '@fed/observability';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { type RunningService, createServiceApp } from '@fed/server';
import { deleteRedisKeys, freePort, signIn, startSmtpServer } from '@fed/testing';
import { type Type } from '@nestjs/common';
import { randomBytes, randomUUID } from 'node:crypto';
import { type AddressInfo, type Socket, createServer } from 'node:net';
import { Writable } from 'node:stream';
import { AdminServiceModule } from './admin-service.module';

const REDIRECT_URI = 'https://admin.example.com/callback';
const PASSWORD = 'correct horse battery staple';
const SENDER = 'Federation <no-reply@example.com>';

/** A server that accepts connections and never says a word (no SMTP greeting). */
async function startSilentServer() {
  const sockets: Socket[] = [];
  const server = createServer((socket) => sockets.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    connections: () => sockets.length,
    close: () => {
      sockets.forEach((socket) => socket.destroy());
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function until(condition: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * Issue 17 "Notifications", spec document 3 user status table: approve sends the approval
 * notification to the user's address, reject sends a notification. Users are created in and sign in
 * through the real realm; the admin calls go through HTTP; the e-mails arrive at an SMTP server of the test's own.
 */
describe("approval and rejection e-mails to the user's address", () => {
  const redis = { url: testServiceUrls().redisUrl, keyPrefix: `test:${randomUUID().slice(0, 8)}:` };
  let database: TestDatabase;
  let auth: RunningService;
  let users: UsersService;
  let adminToken: string;
  const running: RunningService[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    // auth-service's features (an app is not imported by another).
    auth = await boot('auth-service', [SigningKeysModule, OidcModule, RealmImportModule], {
      KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    });
    users = auth.nest.get(UsersService);
    const { clientSecret } = await auth.nest.get(ClientsService).create({
      clientId: 'console',
      name: 'console',
      grantTypes: ['authorization_code'],
      scopes: ['users:manage', 'users:read'],
      redirectUris: [REDIRECT_URI],
      consentRequired: false,
      allowManagementScopes: true,
    });
    await users.create({
      email: 'root@example.com',
      username: 'root',
      displayName: 'root',
      status: 'approved',
      role: 'admin',
      password: PASSWORD,
    });
    const tokens = await signIn({
      serviceUrl: auth.url,
      issuer: auth.config.auth.issuer,
      clientId: 'console',
      clientSecret,
      redirectUri: REDIRECT_URI,
      login: 'root',
      password: PASSWORD,
      scope: 'openid users:manage',
    });
    adminToken = tokens.access_token;
  }, 60_000);

  afterEach(async () => {
    for (const service of running.splice(0)) await service.shutdown('test');
  });

  afterAll(async () => {
    await auth?.shutdown('test');
    await database?.drop();
    await deleteRedisKeys(redis.url, redis.keyPrefix);
  });

  async function boot(
    app: 'auth-service' | 'admin-service',
    features: Type[],
    env: Record<string, string>,
    options: { redis?: boolean; logTo?: Writable } = {},
  ): Promise<RunningService> {
    const port = await freePort();
    const config = loadConfig(app, {
      DATABASE_URL: database.url,
      REDIS_URL: options.redis ? redis.url : 'redis://unused:6379',
      REDIS_KEY_PREFIX: redis.keyPrefix,
      HOST: '127.0.0.1',
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      ...(auth ? { AUTH_URL: auth.config.auth.authUrl } : {}),
      ...env,
    });
    return createServiceApp({
      app,
      features,
      config: options.redis ? config : { ...config, redis: { ...config.redis, url: undefined } },
      logger: createLogger({
        service: app,
        level: options.logTo ? 'info' : 'silent',
        ...(options.logTo ? { destination: options.logTo } : {}),
      }),
    });
  }

  async function bootAdmin(env: Record<string, string>, options: { redis?: boolean; logTo?: Writable } = {}) {
    const admin = await boot('admin-service', [AdminServiceModule], env, options);
    running.push(admin);
    return admin;
  }

  async function pendingUser(login: string): Promise<string> {
    const { user } = await users.create({
      email: `${login}@example.com`,
      username: login,
      displayName: login,
      status: 'pending',
      password: PASSWORD,
    });
    return user.id;
  }

  const post = (admin: RunningService, path: string) =>
    fetch(`${admin.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${adminToken}` } });

  it("approve sends the approval notification to the user's address, in the configured language", async () => {
    const smtp = await startSmtpServer();
    try {
      const admin = await bootAdmin({ SMTP_URL: smtp.url, SMTP_FROM: SENDER });
      const userId = await pendingUser('approved-ja');
      expect((await post(admin, `/api/v1/admin/users/${userId}/approve`)).status).toBe(200);
      await until(() => smtp.received.length === 1);
      expect(smtp.received[0]).toMatchObject({
        to: ['approved-ja@example.com'],
        subject: 'アカウントが承認されました',
      });
    } finally {
      await smtp.close();
    }
  });

  it('reject sends a notification that the approval was withdrawn (NOTIFY_LOCALE=en)', async () => {
    const smtp = await startSmtpServer();
    try {
      const admin = await bootAdmin({ SMTP_URL: smtp.url, SMTP_FROM: SENDER, NOTIFY_LOCALE: 'en' });
      const userId = await pendingUser('rejected-en');
      expect((await post(admin, `/api/v1/admin/users/${userId}/approve`)).status).toBe(200);
      await until(() => smtp.received.length === 1);
      expect((await post(admin, `/api/v1/admin/users/${userId}/reject`)).status).toBe(200);
      await until(() => smtp.received.length === 2);
      expect(smtp.received.map((mail) => mail.subject)).toEqual([
        'Your account has been approved',
        'The approval of your account has been withdrawn',
      ]);
      expect(smtp.received[1].to).toEqual(['rejected-en@example.com']);
    } finally {
      await smtp.close();
    }
  });

  it('a server that refuses at first (451) gets the message on a retry (BullMQ queue on Redis)', async () => {
    const smtp = await startSmtpServer((attempt) => (attempt === 1 ? 451 : undefined));
    try {
      const admin = await bootAdmin(
        { SMTP_URL: smtp.url, SMTP_FROM: SENDER, NOTIFY_LOCALE: 'en', NOTIFY_RETRY_DELAY_SECONDS: '1' },
        { redis: true },
      );
      expect(admin.config.redis.url).toBe(redis.url);
      const userId = await pendingUser('retried');
      expect((await post(admin, `/api/v1/admin/users/${userId}/approve`)).status).toBe(200);
      await until(() => smtp.received.length === 1);
      expect(smtp.attempts()).toBe(2);
      expect(smtp.received[0]).toMatchObject({
        to: ['retried@example.com'],
        subject: 'Your account has been approved',
      });
    } finally {
      await smtp.close();
    }
  });

  it('the admin call returns without waiting for SMTP (a server that hangs does not slow it)', async () => {
    const silent = await startSilentServer();
    try {
      const admin = await bootAdmin({ SMTP_URL: silent.url, SMTP_FROM: SENDER });
      const userId = await pendingUser('hung');
      const started = Date.now();
      const res = await post(admin, `/api/v1/admin/users/${userId}/approve`);
      const elapsed = Date.now() - started;
      expect(res.status).toBe(200);
      // The SMTP greeting timeout is 10 s; the answer does not wait for any of it.
      expect(elapsed).toBeLessThan(2000);
      await until(() => silent.connections() === 1);
    } finally {
      await silent.close();
    }
  });

  it('without SMTP_URL the e-mail is logged (recipient and subject) and nothing is sent', async () => {
    const lines: string[] = [];
    const logTo = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        callback();
      },
    });
    const admin = await bootAdmin({}, { logTo });
    const userId = await pendingUser('logged');
    expect((await post(admin, `/api/v1/admin/users/${userId}/approve`)).status).toBe(200);
    const logged = () =>
      lines.map((line) => JSON.parse(line) as Record<string, unknown>).find((record) => record.to !== undefined);
    await until(() => logged() !== undefined);
    expect(logged()).toMatchObject({ to: 'logged@example.com', subject: 'アカウントが承認されました' });
    expect(lines.join('\n')).not.toContain('サインインできるようになりました');
  });
});
