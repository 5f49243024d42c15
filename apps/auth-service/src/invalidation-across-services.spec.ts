import 'reflect-metadata';
import { testServiceUrls } from '@fed/config';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { type RunningService } from '@fed/server';
import { buildDist, cleanEnv, deleteRedisKeys, signIn, startProcess } from '@fed/testing';
import { decodeProtectedHeader } from 'jose';
import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  ScopeProbeModule,
  bootAuthService,
  bootOtherService,
  createApprovedUser,
  registryOf,
} from '@fed/sign-in/testing';

const REDIRECT_URI = 'https://app.example.com/callback';
const PASSWORD = 'correct horse battery staple';

/**
 * Distributed: an operator's change made with platformctl (a lowered role, a withdrawn approval, a
 * revoked signing key) reaches another service (its own Nest app, JWKS cache and revocation list,
 * sharing only the database, Redis and the JWKS URL) within a second, and one started later knows it.
 */
describe('what platformctl ends is refused by another service within a second (Redis signals)', () => {
  const redis = { url: testServiceUrls().redisUrl, keyPrefix: `test:${randomUUID().slice(0, 8)}:` };
  const encryptionKey = randomBytes(32).toString('base64');
  let database: TestDatabase;
  let auth: RunningService;
  let other: RunningService;
  const secrets: Record<string, string> = {};

  beforeAll(async () => {
    buildDist();
    database = await createTestDatabase();
    auth = await bootAuthService({ databaseUrl: database.url, redis, encryptionKey });
    other = await startService('chat-service');
    const { clients, users } = registryOf(auth);
    secrets.web = (
      await clients.create({
        clientId: 'web',
        name: 'web',
        grantTypes: ['authorization_code', 'refresh_token'],
        scopes: ['chat:exec'],
        redirectUris: [REDIRECT_URI],
        consentRequired: false,
      })
    ).clientSecret;
    secrets.etl = (
      await clients.create({ clientId: 'etl', name: 'etl', grantTypes: ['client_credentials'], scopes: ['logs:read'] })
    ).clientSecret;
    for (const [login, role] of [
      ['alice', 'admin'],
      ['bob', 'user'],
    ] as const) {
      await createApprovedUser(users, login, { password: PASSWORD, role });
    }
  }, 120_000);

  afterAll(async () => {
    await other?.shutdown('test');
    await auth?.shutdown('test');
    await database?.drop();
    await deleteRedisKeys(redis.url, redis.keyPrefix);
  });

  function startService(app: 'chat-service' | 'admin-service'): Promise<RunningService> {
    return bootOtherService(app, { auth, databaseUrl: database.url, redis, features: [ScopeProbeModule] });
  }

  async function platformctl(...args: string[]) {
    const env = {
      DATABASE_URL: database.url,
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: redis.keyPrefix,
      KEY_ENCRYPTION_KEY: encryptionKey,
    };
    const handle = startProcess('dist/apps/platformctl/src/main.js', args, cleanEnv(env));
    const code = await handle.exited(60_000);
    return { code, output: handle.output() };
  }

  const call = (service: RunningService, path: string, token: string) =>
    fetch(`${service.url}${path}`, { headers: { authorization: `Bearer ${token}` } }).then((res) => res.status);

  /** Milliseconds from now until `service` refuses `token` (401); Infinity when it still accepts it after 2 s. */
  async function refusalDelay(service: RunningService, path: string, token: string): Promise<number> {
    const since = Date.now();
    while (Date.now() - since < 2000) {
      if ((await call(service, path, token)) === 401) return Date.now() - since;
      await sleep(20);
    }
    return Number.POSITIVE_INFINITY;
  }

  const signInAs = (login: string) =>
    signIn({
      serviceUrl: auth.url,
      issuer: auth.config.auth.issuer,
      clientId: 'web',
      clientSecret: secrets.web,
      redirectUri: REDIRECT_URI,
      login,
      password: PASSWORD,
      scope: 'openid chat:exec',
    });

  async function clientCredentialsToken(): Promise<string> {
    const res = await fetch(`${auth.url}/federation/auth/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: 'etl', client_secret: secrets.etl }),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { access_token: string }).access_token;
  }

  it("ends a demoted admin's and an unapproved user's existing sessions everywhere", async () => {
    const alice = await signInAs('alice');
    const bob = await signInAs('bob');
    expect(await call(other, '/probe/chat', alice.access_token)).toBe(200);
    expect(await call(other, '/probe/chat', bob.access_token)).toBe(200);
    await sleep(1000); // the cut-off refuses tokens of its own second: keep the sign-ins out of it

    const demoted = await platformctl('users', 'set-role', 'alice', 'user');
    expect(demoted).toMatchObject({ code: 0, output: expect.stringContaining('existing sessions ended') });
    expect(demoted.output).not.toContain('no REDIS_URL');
    expect(await refusalDelay(other, '/probe/chat', alice.access_token)).toBeLessThan(1000);
    expect(await call(other, '/probe/chat', bob.access_token)).toBe(200);

    const rejected = await platformctl('users', 'reject', 'bob');
    expect(rejected).toMatchObject({ code: 0, output: expect.stringContaining('bob: pending') });
    expect(await refusalDelay(other, '/probe/chat', bob.access_token)).toBeLessThan(1000);

    // Their refresh tokens end with them; alice signs in again and her new token is accepted.
    const refresh = (token: string) =>
      fetch(`${auth.url}/federation/auth/v1/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: token,
          client_id: 'web',
          client_secret: secrets.web,
        }),
      });
    expect((await refresh(alice.refresh_token as string)).status).toBe(400);
    expect((await refresh(bob.refresh_token as string)).status).toBe(400);
    await sleep(1000);
    const again = await signInAs('alice');
    expect(await call(other, '/probe/chat', again.access_token)).toBe(200);

    // A service started afterwards knows both cut-offs from the start (retained signals).
    const late = await startService('admin-service');
    try {
      expect(await call(late, '/probe/chat', alice.access_token)).toBe(401);
      expect(await call(late, '/probe/chat', bob.access_token)).toBe(401);
      expect(await call(late, '/probe/chat', again.access_token)).toBe(200);
    } finally {
      await late.shutdown('test');
    }
  });

  it('withdraws a revoked signing key from the JWKS and from every verifier at once, signing on with a new key', async () => {
    const token = await clientCredentialsToken();
    const { kid } = decodeProtectedHeader(token);
    expect(await call(other, '/probe/logs', token)).toBe(200);

    const revoked = await platformctl('keys', 'revoke', kid as string);
    // The whole result, so that a failure shows what the command printed.
    expect(revoked).toMatchObject({ code: 0, output: expect.stringContaining(`revoked ${kid}`) });
    expect(revoked.output).toMatch(/^added \S+ \(active\); signs from now$/m);
    expect(await refusalDelay(other, '/probe/logs', token)).toBeLessThan(1000);

    const jwks = (await (await fetch(`${auth.url}/federation/auth/v1/jwks`)).json()) as { keys: { kid: string }[] };
    expect(jwks.keys.map((key) => key.kid)).not.toContain(kid);
    const userinfo = await fetch(`${auth.url}/federation/auth/v1/userinfo`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(userinfo.status).toBe(401);

    const fresh = await clientCredentialsToken();
    expect(decodeProtectedHeader(fresh).kid).not.toBe(kid);
    expect(await call(other, '/probe/logs', fresh)).toBe(200);

    const late = await startService('admin-service');
    try {
      expect(await call(late, '/probe/logs', token)).toBe(401);
      expect(await call(late, '/probe/logs', fresh)).toBe(200);
    } finally {
      await late.shutdown('test');
    }

    const unknown = await platformctl('keys', 'revoke', 'no-such-kid');
    expect(unknown).toMatchObject({ code: 1, output: expect.stringContaining('key_not_found') });
  });
});
