import 'reflect-metadata';
import { COUNTERS, type CounterState, type Counters } from '@fed/bus';
import { testServiceUrls } from '@fed/config';
import { UsersService } from '@fed/identity';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { type RunningService } from '@fed/server';
import { Redis } from 'ioredis';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { bootAuthService, createApprovedUser, registryOf } from '../testing/boot-auth-service';
import { MetricsScrape, TestBrowser } from '@fed/testing';

const REDIRECT_URI = 'https://app.example.com/callback';
const PASSWORD = 'correct horse battery staple';
const INTERACTION_PATH = '/federation/auth/v1/interaction';
const { redisUrl } = testServiceUrls();
const redisPrefix = `t:${randomUUID().slice(0, 18)}:`;

/** A browser behind one address: auth-service trusts one proxy hop here, so `X-Forwarded-For` is the caller. */
class BrowserAt extends TestBrowser {
  constructor(
    origin: string,
    private readonly address: string,
  ) {
    super(origin);
  }

  override visit(url: string, init: RequestInit = {}) {
    const headers = { ...(init.headers as Record<string, string>), 'x-forwarded-for': this.address };
    return super.visit(url, { ...init, headers });
  }
}

afterAll(async () => {
  const raw = new Redis(redisUrl);
  let cursor = '0';
  do {
    const [next, keys] = await raw.scan(cursor, 'MATCH', `${redisPrefix}*`, 'COUNT', 1000);
    if (keys.length > 0) await raw.del(...keys);
    cursor = next;
  } while (cursor !== '0');
  await raw.quit();
});

describe.each([
  ['in-process counters', undefined],
  ['Redis counters', { url: redisUrl, keyPrefix: redisPrefix }],
])('brute-force protection over HTTP (%s)', (_name, redis) => {
  let database: TestDatabase;
  let service: RunningService;
  let counters: Counters;
  const secrets: Record<string, string> = {};

  beforeAll(async () => {
    database = await createTestDatabase();
    service = await bootAuthService({ databaseUrl: database.url, redis, env: { TRUST_PROXY_HOPS: '1' } });
    counters = service.nest.get<Counters>(COUNTERS, { strict: false });
    const { clients, users } = registryOf(service);
    for (const [clientId, grantTypes] of [
      ['web', ['authorization_code']],
      ['etl', ['client_credentials']],
    ] as const) {
      const redirectUris = clientId === 'web' ? [REDIRECT_URI] : [];
      const issued = await clients.create({
        clientId,
        name: clientId,
        grantTypes,
        scopes: clientId === 'web' ? ['openid'] : ['users:read'],
        redirectUris,
        consentRequired: false,
      });
      secrets[clientId] = issued.clientSecret;
    }
    for (const login of ['alice', 'bob', 'carol', 'dave']) {
      await createApprovedUser(users, login, { password: PASSWORD });
    }
    await createApprovedUser(users, 'erin', { password: PASSWORD, status: 'pending' });
  });

  afterAll(async () => {
    jest.restoreAllMocks();
    await service?.shutdown('test');
    await database?.drop();
  });

  /** The login page of a new authorization request in `browser`, even one signed in already. */
  const loginPage = (browser: TestBrowser) => {
    const verifier = randomBytes(32).toString('base64url');
    const params = new URLSearchParams({
      client_id: 'web',
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      scope: 'openid',
      state: 'xyz',
      prompt: 'login',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      ui_locales: 'en',
    });
    return browser.visit(`${service.url}/federation/auth/v1/authorize?${params}`);
  };

  const token = (clientId: string, secret: string, address: string) =>
    fetch(`${service.url}/federation/auth/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': address },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret }),
    });

  it('checks at most five passwords of 300 concurrent wrong ones for one account from one address; the rest are 429', async () => {
    const browser = new BrowserAt(service.url, '203.0.113.7');
    const page = await loginPage(browser);
    const checks = jest.spyOn(UsersService.prototype, 'checkLoginPassword');
    const answers = await Promise.all(
      Array.from({ length: 300 }, () => browser.submit(page, { login: 'alice', password: 'wrong password' })),
    );
    const checked = checks.mock.calls.length;
    checks.mockRestore();
    expect(checked).toBe(5);
    expect(answers.filter((answer) => answer.status === 401)).toHaveLength(5);
    const refused = answers.filter((answer) => answer.status === 429);
    expect(refused).toHaveLength(295);
    expect(refused[0]?.html).toContain('Too many failed attempts');
  });

  it('counts every one of 300 concurrent wrong client secrets from one address; then the right one is refused there and accepted elsewhere', async () => {
    const hits = jest.spyOn(counters, 'hit');
    const answers = await Promise.all(Array.from({ length: 300 }, () => token('etl', 'wrong secret', '203.0.113.8')));
    const counted = await Promise.all(hits.mock.results.map((result) => result.value as Promise<CounterState>));
    hits.mockRestore();
    expect(answers.every((answer) => answer.status === 401)).toBe(true);
    expect(((await answers[0]?.json()) as { error: string }).error).toBe('invalid_client');
    expect(counted.map((state) => state.count).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 300 }, (_, index) => index + 1),
    );
    expect((await token('etl', secrets.etl as string, '203.0.113.8')).status).toBe(401);
    expect((await token('etl', secrets.etl as string, '198.51.100.8')).status).toBe(200);
  });

  it('refuses a disabled client its right secret without counting it: enabled again, it gets tokens at once', async () => {
    const { clients } = registryOf(service);
    const paused = await clients.create({
      clientId: 'paused-etl',
      name: 'paused',
      grantTypes: ['client_credentials'],
      scopes: ['users:read'],
    });
    await clients.update('paused-etl', { enabled: false });
    // A service that keeps retrying while its client is disabled: ten times the throttle's budget of five.
    for (let attempt = 0; attempt < 10; attempt++) {
      const refused = await token('paused-etl', paused.clientSecret, '203.0.113.20');
      expect([refused.status, ((await refused.json()) as { error: string }).error]).toEqual([401, 'invalid_client']);
    }
    await clients.update('paused-etl', { enabled: true });
    let status = 0;
    for (const started = Date.now(); status !== 200 && Date.now() - started < 5_000;) {
      status = (await token('paused-etl', paused.clientSecret, '203.0.113.20')).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe(200);
  });

  it('keeps giving a client its tokens from its own address while others send it wrong secrets', async () => {
    for (let attempt = 0; attempt < 30; attempt++) {
      const address = `192.0.2.${attempt % 3}`;
      expect((await token('web', 'wrong secret', address)).status).toBe(401);
      const revoke = await fetch(`${service.url}/federation/auth/v1/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': address },
        body: new URLSearchParams({ token: 'x', client_id: 'etl', client_secret: 'wrong secret' }),
      });
      expect(revoke.status).toBe(401);
    }
    expect((await token('etl', secrets.etl as string, '198.51.100.9')).status).toBe(200);
    // The code flow's client still authenticates: its wrong grant, not its secret, is what is refused.
    const exchange = await fetch(`${service.url}/federation/auth/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': '198.51.100.9' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: 'web', client_secret: secrets.web }),
    });
    expect(((await exchange.json()) as { error: string }).error).toBe('unauthorized_client');
  });

  it('lets the user who signed in from this browser in with its device cookie while attackers have locked their address', async () => {
    const home = '198.51.100.20';
    const browser = new BrowserAt(service.url, home);
    const signedIn = await browser.submit(await loginPage(browser), { login: 'bob', password: PASSWORD });
    expect(signedIn.location).toMatch(/^https:\/\/app\.example\.com\/callback\?code=/);
    const deviceCookie = browser.rawSetCookies.find((header) => header.startsWith('fed_device='));
    expect(deviceCookie?.split('; ').slice(1)).toEqual([
      `Max-Age=${30 * 24 * 3600}`,
      `Path=${INTERACTION_PATH}`,
      'HttpOnly',
      'SameSite=Strict',
    ]);

    // Someone else behind the same address (a shared NAT) guesses bob's password.
    const attacker = new BrowserAt(service.url, home);
    let page = await loginPage(attacker);
    for (let attempt = 0; attempt < 5; attempt++) {
      page = await attacker.submit(page, { login: 'bob', password: 'wrong password' });
      expect(page.status).toBe(401);
    }
    expect((await attacker.submit(page, { login: 'bob', password: PASSWORD })).status).toBe(429);
    // A device cookie of another account (dave signed in from that browser) does not count for bob.
    const daves = new BrowserAt(service.url, home);
    expect((await daves.submit(await loginPage(daves), { login: 'dave', password: PASSWORD })).location).toBeDefined();
    expect((await daves.submit(await loginPage(daves), { login: 'bob', password: PASSWORD })).status).toBe(429);

    const again = await browser.submit(await loginPage(browser), { login: 'bob@example.com', password: PASSWORD });
    expect(again.location).toMatch(/^https:\/\/app\.example\.com\/callback\?code=/);
  });

  it('counts the e-mail address and the username of one account against one budget, and an unknown login alike', async () => {
    const browser = new BrowserAt(service.url, '203.0.113.40');
    let page = await loginPage(browser);
    for (const login of ['carol@example.com', 'carol@example.com', 'carol', 'carol', ' CAROL ']) {
      page = await browser.submit(page, { login, password: 'wrong password' });
      expect(page.status).toBe(401);
    }
    expect((await browser.submit(page, { login: 'Carol@Example.com', password: PASSWORD })).status).toBe(429);
    for (let attempt = 0; attempt < 5; attempt++) {
      page = await browser.submit(page, { login: 'nobody@example.com', password: 'wrong password' });
      expect(page.status).toBe(401);
    }
    expect((await browser.submit(page, { login: 'nobody@example.com', password: PASSWORD })).status).toBe(429);
  });

  it('shows failed sign-ins by reason and every lock it arms on /metrics', async () => {
    const before = await MetricsScrape.of(service.url);
    const browser = new BrowserAt(service.url, '203.0.113.60');
    let page = await loginPage(browser);
    for (let attempt = 0; attempt < 5; attempt++) {
      page = await browser.submit(page, { login: 'frank', password: 'wrong password' });
      expect(page.status).toBe(401);
    }
    expect((await browser.submit(page, { login: 'frank', password: PASSWORD })).status).toBe(429);
    // The right password of an account not approved yet is a failure too.
    const pending = new BrowserAt(service.url, '203.0.113.61');
    expect((await pending.submit(await loginPage(pending), { login: 'erin', password: PASSWORD })).status).toBe(403);
    for (let attempt = 0; attempt < 5; attempt++) {
      expect((await token('etl', 'wrong secret', '203.0.113.62')).status).toBe(401);
    }
    expect((await token('etl', secrets.etl as string, '203.0.113.62')).status).toBe(401);

    const after = await MetricsScrape.of(service.url);
    const added = (name: string, labels: Record<string, string> = {}) =>
      after.sum(name, labels) - before.sum(name, labels);
    expect(added('auth_login_failures_total', { reason: 'invalid_credentials' })).toBe(5);
    expect(added('auth_login_failures_total', { reason: 'not_approved' })).toBe(1);
    expect(added('auth_login_failures_total', { reason: 'invalid_client' })).toBe(5);
    // The sixth password and the right secret, refused by the locks.
    expect(added('auth_login_failures_total', { reason: 'throttled' })).toBe(2);
    // frank from .60, etl from .62.
    expect(added('auth_lockouts_total')).toBe(2);
    expect(after.find('auth_lockouts_total')[0]?.labels).toEqual({ service: 'auth-service' });
  });
});
