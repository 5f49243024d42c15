import 'reflect-metadata';
import { type ClientsService, type UsersService } from '@fed/identity';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { type RunningService } from '@fed/server';
import { TestBrowser, signIn } from '@fed/testing';
import { decodeJwt } from 'jose';
import { setTimeout as sleep } from 'node:timers/promises';
import * as oidc from 'openid-client';
import { type DataSource } from 'typeorm';
import { AccountFormClient } from '../testing/account-forms';
import { bootAuthService, registryOf } from '../testing/boot-auth-service';
import { ScopeProbeModule } from '../testing/scope-probe.module';
import { type SmtpMailbox, accountLinkIn, startSmtpMailbox } from '../testing/smtp-mailbox';

const REDIRECT_URI = 'https://app.example.com/callback';
const PASSWORD = 'violet tractor pebble harbor';
const NEW_PASSWORD = 'quiet lantern meadow 42';
const FORGOT = '/federation/auth/v1/account/password/forgot';

/**
 * Session cut-offs to the millisecond (issue 34, Medium 8): a password reset, a demotion or a withdrawn
 * approval ends every login made before it, and none made after it, even within the same second; and
 * the consent screen never offers a scope the user cannot hold (High 2). Real SMTP, the real OIDC flow.
 */
describe('session cut-offs and the consent screen (auth-service over HTTP)', () => {
  let database: TestDatabase;
  let mailbox: SmtpMailbox;
  let auth: RunningService;
  let users: UsersService;
  let clients: ClientsService;
  let dataSource: DataSource;
  const secrets: Record<string, string> = {};

  beforeAll(async () => {
    database = await createTestDatabase();
    mailbox = await startSmtpMailbox();
    auth = await bootAuthService({
      databaseUrl: database.url,
      env: { SMTP_URL: mailbox.url, SMTP_FROM: 'no-reply@example.com', NOTIFY_RETRY_DELAY_SECONDS: '1' },
      features: [ScopeProbeModule],
    });
    ({ users, clients, dataSource } = registryOf(auth));
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
    secrets.console = (
      await clients.create({
        clientId: 'console',
        name: 'console',
        grantTypes: ['authorization_code', 'refresh_token'],
        scopes: ['chat:exec', 'users:manage', 'logs:read'],
        redirectUris: [REDIRECT_URI],
        consentRequired: true,
        allowManagementScopes: true,
      })
    ).clientSecret;
  }, 60_000);

  afterAll(async () => {
    await auth?.shutdown('test');
    await mailbox?.close();
    await database?.drop();
  });

  const createUser = async (login: string, role: 'admin' | 'user' = 'user') =>
    (
      await users.create({
        email: `${login}@example.com`,
        username: login,
        displayName: login,
        password: PASSWORD,
        status: 'approved',
        role,
      })
    ).user.id;
  const signInAs = (login: string, password = PASSWORD) =>
    signIn({
      serviceUrl: auth.url,
      issuer: auth.config.auth.issuer,
      clientId: 'web',
      clientSecret: secrets.web,
      redirectUri: REDIRECT_URI,
      login,
      password,
      scope: 'openid chat:exec',
    });
  const probe = async (token: string) =>
    (await fetch(`${auth.url}/probe/chat`, { headers: { authorization: `Bearer ${token}` } })).status;
  const userinfo = async (token: string) =>
    (await fetch(`${auth.url}/federation/auth/v1/userinfo`, { headers: { authorization: `Bearer ${token}` } })).status;
  const refresh = async (refreshToken: string, clientId = 'web') =>
    (
      await fetch(`${auth.url}/federation/auth/v1/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: refreshToken,
          client_id: clientId,
          client_secret: secrets[clientId],
        }),
      })
    ).status;
  /** Waits for the start of a second, so that what follows (well under a second) shares it. */
  const startOfASecond = async () => {
    while (Date.now() % 1000 > 50) await sleep(5);
  };
  const cutOffOf = async (userId: string) =>
    (
      (await dataSource.query('SELECT "sessions_valid_after" FROM "identity"."users" WHERE "id" = $1', [userId])) as {
        sessions_valid_after: Date;
      }[]
    )[0].sessions_valid_after;
  /** The second the token's login was made in, and that of the user's cut-off: equal when they shared it. */
  const secondsOf = async (accessToken: string, userId: string) => [
    decodeJwt(accessToken).auth_time,
    Math.floor((await cutOffOf(userId)).getTime() / 1000),
  ];

  it('signs in right after a password reset, in the same second, end to end; every token and refresh token from before is refused', async () => {
    const userId = await createUser('hal');
    const before = await signInAs('hal');
    expect(await probe(before.access_token)).toBe(200);

    // Two tries at most (the e-mails to one address are rate-limited): a slow machine may cross a second.
    let after: oidc.TokenEndpointResponse | undefined;
    let password = PASSWORD;
    for (let attempt = 0; attempt < 2; attempt++) {
      const form = new AccountFormClient(auth.url);
      expect((await form.submit(`${FORGOT}?lang=en`, { email: 'hal@example.com' })).status).toBe(200);
      const link = accountLinkIn(await mailbox.nth('hal@example.com', attempt + 1));
      const token = link.searchParams.get('token') as string;
      await form.get(link.pathname + link.search);
      password = `${NEW_PASSWORD} ${attempt}`;
      await startOfASecond();
      expect((await form.post(link.pathname, { token, password, lang: 'en' })).status).toBe(200);
      after = await signInAs('hal', password); // before the fix: invalid_grant "the user's sessions have ended"
      const [loginSecond, cutOffSecond] = await secondsOf(after.access_token, userId);
      if (loginSecond === cutOffSecond) break;
      after = undefined;
    }
    if (!after) throw new Error('the reset and the sign-in never shared a second');
    expect(await probe(after.access_token)).toBe(200);
    expect(await userinfo(after.access_token)).toBe(200);
    expect(await refresh(after.refresh_token as string)).toBe(200);

    expect(await probe(before.access_token)).toBe(401);
    expect(await userinfo(before.access_token)).toBe(401);
    expect(await refresh(before.refresh_token as string)).toBe(400);
  });

  it('refuses at the exchange a code whose login was made before the cut-off, and takes one made after it in the same second', async () => {
    const userId = await createUser('cody');
    const config = await oidc.discovery(
      new URL(auth.config.auth.issuer),
      'web',
      undefined,
      oidc.ClientSecretPost(secrets.web),
      { execute: [oidc.allowInsecureRequests] },
    );
    const startLogin = async () => {
      const browser = new TestBrowser(auth.url);
      const verifier = oidc.randomPKCECodeVerifier();
      const state = oidc.randomState();
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: REDIRECT_URI,
        scope: 'openid chat:exec',
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state,
      });
      const login = await browser.visit(url.href);
      const page = await browser.submit(login, { login: 'cody', password: PASSWORD });
      const exchange = () =>
        oidc.authorizationCodeGrant(config, new URL(page.location as string), {
          pkceCodeVerifier: verifier,
          expectedState: state,
        });
      return { exchange };
    };
    await startOfASecond();
    const earlier = await startLogin();
    // A withdrawn approval given back at once: the login above was made before it, in the same second.
    await users.reject(userId);
    await users.approve(userId);
    const later = await startLogin();
    await expect(earlier.exchange()).rejects.toMatchObject({ error: 'invalid_grant' });
    const tokens = await later.exchange();
    expect(await probe(tokens.access_token)).toBe(200);
  });

  it.each([
    ['a demotion', 'admin', (userId: string) => users.setRole(userId, 'user')],
    [
      'a withdrawn approval, given back',
      'user',
      (userId: string) => users.reject(userId).then(() => users.approve(userId)),
    ],
  ] as const)(
    'takes a sign-in in the same second right after %s, and refuses the tokens from before it',
    async (_change, role, change) => {
      const login = `u${Math.random().toString(36).slice(2, 8)}`;
      const userId = await createUser(login, role);
      const before = await signInAs(login);
      let after: oidc.TokenEndpointResponse | undefined;
      for (let attempt = 0; attempt < 3 && !after; attempt++) {
        await startOfASecond();
        await change(userId);
        after = await signInAs(login);
        const [loginSecond, cutOffSecond] = await secondsOf(after.access_token, userId);
        if (loginSecond !== cutOffSecond) after = undefined;
      }
      if (!after) throw new Error('the change and the sign-in never shared a second');
      expect(await probe(after.access_token)).toBe(200);
      expect(await refresh(after.refresh_token as string)).toBe(200);
      expect(await probe(before.access_token)).toBe(401);
      expect(await refresh(before.refresh_token as string)).toBe(400);
    },
  );

  it('never offers a scope the user cannot hold on the consent screen, and asks again once a promotion lets the user hold more', async () => {
    const userId = await createUser('uma');
    const consentFor = async () => {
      const config = await oidc.discovery(
        new URL(auth.config.auth.issuer),
        'console',
        undefined,
        oidc.ClientSecretPost(secrets.console),
        { execute: [oidc.allowInsecureRequests] },
      );
      const browser = new TestBrowser(auth.url);
      const verifier = oidc.randomPKCECodeVerifier();
      const state = oidc.randomState();
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: REDIRECT_URI,
        scope: 'openid chat:exec users:manage logs:read',
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state,
      });
      const login = await browser.visit(url.href);
      const consent = await browser.submit(login, { login: 'uma', password: PASSWORD });
      const shown = [...consent.html.matchAll(/<code>([^<]+)<\/code>/g)].map(([, scope]) => scope);
      const done = consent.html.includes('name="decision"')
        ? await browser.submit(consent, { decision: 'allow' })
        : consent;
      const tokens = await oidc.authorizationCodeGrant(config, new URL(done.location as string), {
        pkceCodeVerifier: verifier,
        expectedState: state,
      });
      return { shown, scope: String(tokens.scope).split(' ').sort() };
    };

    const asUser = await consentFor();
    expect(asUser.shown).toEqual(['openid', 'chat:exec']);
    expect(asUser.scope).toEqual(['chat:exec', 'openid']);
    // Consented to all the user may hold: no screen the next time.
    expect((await consentFor()).shown).toEqual([]);

    await users.setRole(userId, 'admin');
    const asAdmin = await consentFor();
    expect(asAdmin.shown).toEqual(['openid', 'chat:exec', 'users:manage', 'logs:read']);
    expect(asAdmin.scope).toEqual(['chat:exec', 'logs:read', 'openid', 'users:manage']);
  });
});
