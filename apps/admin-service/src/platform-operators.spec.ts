import 'reflect-metadata';
import { SIGNALS, type Signals } from '@fed/bus';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { PLATFORM_SCOPE } from '@fed/contracts';
import {
  ClientsService,
  type RealmFile,
  identityEntities,
  realmServiceFor,
  signalSessionInvalidations,
} from '@fed/identity';
import { createTestDatabase } from '@fed/persistence/testing';
import { TestBrowser, signIn } from '@fed/testing';
import { decodeJwt } from 'jose';
import * as oidc from 'openid-client';
import { type AdminStack, PASSWORD, bootAdminStack, call } from './testing/boot-admin-stack';

const REDIRECT_URI = 'https://console.example.com/operator/callback';
const CONSOLE_SCOPE = `openid users:read logs:read ${PLATFORM_SCOPE}`;

/**
 * Platform operator accounts: a user holds `platform:manage` only while an admin and a platform operator (the flag
 * set by platformctl and realm files alone), through the real code flow, consent page and refreshes; turning the
 * flag off ends the user's sessions everywhere within a second.
 */
describe('platform operator accounts', () => {
  let stack: AdminStack;
  const secrets: Record<'console' | 'asking', string> = { console: '', asking: '' };

  beforeAll(async () => {
    stack = await bootAdminStack();
    const clients = stack.auth.nest.get(ClientsService);
    // The operator console: no consent page; and an application that asks for consent.
    for (const [clientId, consentRequired] of [
      ['console', false],
      ['asking', true],
    ] as const) {
      secrets[clientId] = (
        await clients.create({
          clientId: `operator-${clientId}`,
          name: `Operator ${clientId}`,
          grantTypes: ['authorization_code', 'refresh_token'],
          scopes: CONSOLE_SCOPE.split(' ').filter((scope) => scope !== 'openid'),
          redirectUris: [REDIRECT_URI],
          consentRequired,
          allowManagementScopes: true,
        })
      ).clientSecret;
    }
  }, 120_000);

  afterAll(() => stack?.close());

  const operatorAdmin = async (login: string): Promise<string> => {
    const userId = await stack.createUser(login, { role: 'admin' });
    await stack.users.setPlatformOperator(userId, true);
    return userId;
  };

  async function consoleSignIn(login: string) {
    const tokens = await signIn({
      serviceUrl: stack.auth.url,
      issuer: stack.auth.config.auth.issuer,
      clientId: 'operator-console',
      clientSecret: secrets.console,
      redirectUri: REDIRECT_URI,
      login,
      password: PASSWORD,
      scope: CONSOLE_SCOPE,
    });
    return {
      accessToken: tokens.access_token,
      refreshToken: tokens.refresh_token as string,
      scopes: (tokens.scope ?? '').split(' ').sort(),
    };
  }

  async function refreshed(refreshToken: string): Promise<{ status: number; scopes: string[]; refreshToken?: string }> {
    const res = await fetch(`${stack.auth.url}/federation/auth/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        client_id: 'operator-console',
        client_secret: secrets.console,
      }),
    });
    const body = (await res.json()) as { scope?: string; refresh_token?: string };
    return { status: res.status, scopes: (body.scope ?? '').split(' ').sort(), refreshToken: body.refresh_token };
  }

  /** The scopes the consent page of `operator-asking` lists for `login`, and those of the token it leads to. */
  async function consentFor(login: string): Promise<{ shown: string[]; granted: string[] }> {
    const config = await oidc.discovery(
      new URL(stack.auth.config.auth.issuer),
      'operator-asking',
      undefined,
      oidc.ClientSecretPost(secrets.asking),
      { execute: [oidc.allowInsecureRequests] },
    );
    const browser = new TestBrowser(stack.auth.url);
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      scope: CONSOLE_SCOPE,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
    });
    const consent = await browser.submit(await browser.visit(url.href), { login, password: PASSWORD });
    const shown = [...consent.html.matchAll(/<code>([^<]+)<\/code>/g)].map(([, scope]) => scope as string);
    const done = await browser.submit(consent, { decision: 'allow' });
    const tokens = await oidc.authorizationCodeGrant(config, new URL(done.location as string), {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
    return { shown: shown.sort(), granted: (tokens.scope ?? '').split(' ').sort() };
  }

  const listClients = (token: string) => call(stack.admin, 'GET', '/api/v1/admin/clients', token);

  it('gives an admin who is a platform operator platform:manage through the code flow, and it manages clients with it', async () => {
    await operatorAdmin('otto');
    const otto = await consoleSignIn('otto');
    expect(otto.scopes).toEqual(['logs:read', 'openid', PLATFORM_SCOPE, 'users:read'].sort());
    expect(decodeJwt(otto.accessToken).scope).toContain(PLATFORM_SCOPE);
    const listed = await listClients(otto.accessToken);
    expect(listed.status).toBe(200);
    expect((listed.body.clients as { clientId: string }[]).map((c) => c.clientId)).toContain('operator-console');
    const created = await call(stack.admin, 'POST', '/api/v1/admin/clients', otto.accessToken, {
      clientId: 'made-by-otto',
      name: 'Made by an operator account',
      grantTypes: ['client_credentials'],
      scopes: ['logs:read'],
    });
    expect(created.status).toBe(201);
    // Every refresh asks again, and keeps it while the user is both.
    const again = await refreshed(otto.refreshToken);
    expect([again.status, again.scopes.includes(PLATFORM_SCOPE)]).toEqual([200, true]);
  });

  it('withholds platform:manage from an admin of the same client who is not a platform operator: 403 on the clients routes', async () => {
    await stack.createUser('nina', { role: 'admin' });
    const nina = await consoleSignIn('nina');
    expect(nina.scopes).toEqual(['logs:read', 'openid', 'users:read']);
    const listed = await listClients(nina.accessToken);
    expect([listed.status, listed.body.error?.code]).toEqual([403, 'insufficient_scope']);
    // Her other management scopes stand.
    expect((await call(stack.admin, 'GET', '/api/v1/admin/users', nina.accessToken)).status).toBe(200);
    const again = await refreshed(nina.refreshToken);
    expect([again.status, again.scopes.includes(PLATFORM_SCOPE)]).toEqual([200, false]);
  });

  it('lists platform:manage on the consent page only for an admin who is a platform operator', async () => {
    await operatorAdmin('olga');
    await stack.createUser('nick', { role: 'admin' });
    const olga = await consentFor('olga');
    expect(olga.shown).toContain(PLATFORM_SCOPE);
    expect(olga.granted).toContain(PLATFORM_SCOPE);
    const nick = await consentFor('nick');
    expect(nick.shown).toEqual(['logs:read', 'openid', 'users:read']);
    expect(nick.granted).toEqual(['logs:read', 'openid', 'users:read']);
  });

  it("ends an operator's sessions everywhere within a second when the flag is turned off: the access token is refused, the refresh fails, a new sign-in has no platform:manage", async () => {
    const userId = await operatorAdmin('oscar');
    const oscar = await consoleSignIn('oscar');
    expect((await listClients(oscar.accessToken)).status).toBe(200);

    expect(await stack.users.setPlatformOperator(userId, false)).toEqual({ sessionsInvalidated: true });
    const since = Date.now();
    for (;;) {
      const answer = await listClients(oscar.accessToken);
      if (answer.status === 401) break;
      expect(Date.now() - since).toBeLessThan(1000);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    // Every service: chat-service refuses it too.
    expect((await call(stack.chat, 'GET', '/api/v1/conversations', oscar.accessToken)).status).toBe(401);
    expect((await refreshed(oscar.refreshToken)).status).toBe(400);

    const again = await consoleSignIn('oscar');
    expect(again.scopes).toEqual(['logs:read', 'openid', 'users:read']);
    expect((await listClients(again.accessToken)).status).toBe(403);
  });

  it('gives a demoted operator no platform:manage: the flag stays, the admin role check refuses it', async () => {
    const userId = await operatorAdmin('dora');
    const dora = await consoleSignIn('dora');
    await stack.users.setRole(userId, 'user');
    const since = Date.now();
    for (;;) {
      const answer = await listClients(dora.accessToken);
      if (answer.status === 401 || answer.status === 403) break;
      expect(Date.now() - since).toBeLessThan(1000);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const again = await consoleSignIn('dora');
    expect(again.scopes).toEqual(['openid']);
    expect((await listClients(again.accessToken)).status).toBe(403);
  });

  it('applies a flag turned on from the next sign-in; the session in progress keeps the scopes it was given', async () => {
    const userId = await stack.createUser('paula', { role: 'admin' });
    const before = await consoleSignIn('paula');
    expect(await stack.users.setPlatformOperator(userId, true)).toEqual({ sessionsInvalidated: false });
    expect((await listClients(before.accessToken)).status).toBe(403);
    expect((await call(stack.admin, 'GET', '/api/v1/admin/users', before.accessToken)).status).toBe(200);
    const after = await consoleSignIn('paula');
    expect(after.scopes).toContain(PLATFORM_SCOPE);
    expect((await listClients(after.accessToken)).status).toBe(200);
  });

  it('round-trips the flag through a realm file; a file that drops it ends the sessions as platformctl does', async () => {
    await operatorAdmin('rita');
    await stack.createUser('ron', { role: 'admin' });
    const signals = stack.auth.nest.get<Signals>(SIGNALS);
    const config = stack.auth.nest.get<ServiceConfig>(SERVICE_CONFIG);
    const realm = realmServiceFor(stack.dataSource, config, signalSessionInvalidations(signals, config));
    const exported = await realm.export();
    const users = (exported.users ?? []).filter((u) => u.email === 'rita@example.com' || u.email === 'ron@example.com');
    expect(users.map((u) => [u.email, u.role, u.platformOperator])).toEqual([
      ['rita@example.com', 'admin', true],
      ['ron@example.com', 'admin', undefined],
    ]);

    const other = await createTestDatabase({ entities: identityEntities });
    try {
      const file: RealmFile = { realm: 'federation', users };
      await realmServiceFor(other.dataSource, config).import(file);
      const rows = (await other.dataSource.query(
        `SELECT "email", "platform_operator" FROM "identity"."users" ORDER BY "email"`,
      )) as { email: string; platform_operator: boolean }[];
      expect(rows).toEqual([
        { email: 'rita@example.com', platform_operator: true },
        { email: 'ron@example.com', platform_operator: false },
      ]);
    } finally {
      await other.drop();
    }

    const rita = await consoleSignIn('rita');
    expect(rita.scopes).toContain(PLATFORM_SCOPE);
    const [ritaRecord] = users;
    const report = await realm.import({
      realm: 'federation',
      users: [{ ...(ritaRecord as NonNullable<RealmFile['users']>[number]), platformOperator: false }],
    });
    expect(report.sessionsEnded).toHaveLength(1);
    const since = Date.now();
    for (;;) {
      if ((await listClients(rita.accessToken)).status === 401) break;
      expect(Date.now() - since).toBeLessThan(1000);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect((await refreshed(rita.refreshToken)).status).toBe(400);
  });
});
