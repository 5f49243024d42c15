import 'reflect-metadata';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { realmServiceFor } from '@fed/identity';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { type RunningService } from '@fed/server';
import { freePort } from '@fed/testing';
import * as oidc from 'openid-client';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { DataSource } from 'typeorm';
import { expectNoAxeViolations } from '../testing/axe';
import { bootAuthService } from '../testing/boot-auth-service';
import { axeContext, describeWithChromium, launchChromium } from '../testing/chromium';
import { type UpstreamProvider, startUpstreamProvider } from '../testing/upstream-provider';

const REDIRECT_URI = 'https://app.example.com/callback';
const CLIENT_SECRET = 'web-client-secret-of-at-least-32-characters';
const PASSWORD = 'correct horse battery staple';

const alice = {
  name: 'Alice Liddell',
  preferred_username: 'alice.l',
  email: 'Alice@Acme.example',
  email_verified: true,
  department: 'rnd',
  job_title: 'Engineer',
  about: { bio: 'Follows white rabbits.' },
};

const claimsOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString('utf8'));

describeWithChromium('idp-login.spec')("sign-in through an enterprise tenant's own OpenID provider", () => {
  let database: TestDatabase;
  let service: RunningService;
  let dataSource: DataSource;
  let upstream: UpstreamProvider;
  let browser: Browser;
  let client: oidc.Configuration;
  // Alice's tokens from the first sign-in, used by the later checks.
  let aliceTokens: oidc.TokenEndpointResponse;

  beforeAll(async () => {
    database = await createTestDatabase();
    service = await bootAuthService({ databaseUrl: database.url });
    dataSource = service.nest.get(DataSource);
    upstream = await startUpstreamProvider({
      redirectUri: `${service.config.auth.authUrl}/federation/auth/v1/idp/callback`,
      accounts: { alice, carol: { name: 'Carol', email: 'carol@acme.example', email_verified: true } },
    });
    await dataSource.query(
      `INSERT INTO "identity"."organizations" ("code", "label", "created_at", "updated_at") VALUES ('rnd', 'Research & Development', now(), now())`,
    );
    // Nothing listens there: a provider that is down.
    const down = `http://localhost:${await freePort()}`;
    await realmServiceFor(dataSource, service.nest.get<ServiceConfig>(SERVICE_CONFIG)).import({
      realm: 'federation',
      tenants: [
        {
          name: 'acme',
          type: 'enterprise',
          endpoint: 'https://acme.example',
          idp: {
            issuer: upstream.issuer,
            clientId: upstream.clientId,
            clientSecret: upstream.clientSecret,
            scopes: ['openid', 'profile', 'email', 'org'],
            domains: ['acme.example'],
            claims: { organization: 'department', job: 'job_title', bio: 'about.bio' },
          },
        },
        {
          name: 'downcorp',
          type: 'enterprise',
          endpoint: 'https://down.example',
          idp: { issuer: down, clientId: 'x', clientSecret: 'y', domains: ['down.example'] },
        },
      ],
      clients: [
        {
          clientId: 'web',
          name: 'Web',
          secret: CLIENT_SECRET,
          grantTypes: ['authorization_code', 'refresh_token'],
          redirectUris: [REDIRECT_URI],
          scopes: ['openid', 'profile', 'email', 'chat:exec'],
        },
      ],
      // A local account (default tenant) with the address the upstream's carol has.
      users: [{ email: 'carol@acme.example', username: 'carol', displayName: 'Carol Local', password: PASSWORD }],
    });
    client = await oidc.discovery(
      new URL(service.config.auth.issuer),
      'web',
      undefined,
      oidc.ClientSecretPost(CLIENT_SECRET),
      {
        execute: [oidc.allowInsecureRequests],
      },
    );
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await upstream?.stop();
    await service?.shutdown('test');
    await database?.drop();
  });

  /** An authorization request of the `web` application, and what its redirect URI receives. */
  async function startSignIn(context: BrowserContext, extra: Record<string, string> = {}) {
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(client, {
      redirect_uri: REDIRECT_URI,
      scope: 'openid profile email chat:exec',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      ui_locales: 'en',
      ...extra,
    });
    const page = await context.newPage();
    const back: { url?: URL } = {};
    await page.route('https://app.example.com/**', async (route) => {
      back.url = new URL(route.request().url());
      await route.fulfill({ status: 200, contentType: 'text/plain', body: 'signed in' });
    });
    // The development login page of the upstream imports a web font: not needed here.
    await page.route('https://fonts.googleapis.com/**', (route) => route.abort());
    const exchange = () =>
      oidc.authorizationCodeGrant(client, back.url as URL, {
        pkceCodeVerifier: verifier,
        expectedState: state,
        idTokenExpected: true,
      });
    return { page, url, back, exchange };
  }

  async function typeAtLoginPage(page: Page, login: string): Promise<void> {
    await page.fill('#login', login);
    // The password is never looked at for an address of a tenant's domain.
    await page.fill('#password', 'not-the-upstream-password');
    await page.press('#password', 'Enter');
  }

  async function signInUpstream(page: Page, login: string): Promise<void> {
    await page.waitForURL(`${upstream.issuer}/**`);
    await page.fill('input[name="login"]', login);
    await page.fill('input[name="password"]', 'any password');
    await page.click('button[type="submit"]');
  }

  async function userinfo(accessToken: string): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await fetch(`${service.url}/federation/auth/v1/userinfo`, {
      headers: { authorization: `Bearer ${accessToken}` },
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  it('finds the tenant by the e-mail domain, signs in upstream, asks consent, and fills every idp claim of the tokens and userinfo', async () => {
    const context = await browser.newContext();
    const { page, url, back, exchange } = await startSignIn(context);
    await page.goto(url.href);
    await typeAtLoginPage(page, 'alice@acme.example');
    await signInUpstream(page, 'alice');
    await page.locator('button[name="decision"][value="allow"]').click();
    await page.waitForURL('https://app.example.com/**');
    expect(back.url?.searchParams.get('code')).toBeTruthy();
    aliceTokens = await exchange();
    await context.close();

    const access = claimsOf(aliceTokens.access_token);
    expect(access.tenant).toMatchObject({ type: 'enterprise', endpoint: 'https://acme.example' });
    expect(access.idp).toEqual({
      sub: 'alice',
      preferred_username: 'alice@acme.example',
      organization: 'Research & Development',
      job: 'Engineer',
      bio: 'Follows white rabbits.',
    });
    const id = claimsOf(aliceTokens.id_token as string);
    expect(id.idp).toEqual({ ...access.idp, display_name: 'Alice Liddell', email: 'alice@acme.example' });
    expect(id).toMatchObject({ name: 'Alice Liddell', email: 'alice@acme.example', email_verified: true });

    const info = await userinfo(aliceTokens.access_token);
    expect(info.status).toBe(200);
    expect(info.body.idp).toEqual({
      sub: 'alice',
      name: 'Alice Liddell',
      preferred_username: 'alice.l',
      email: 'alice@acme.example',
      email_verified: true,
      organization: { id: 'rnd', label: 'Research & Development' },
      job: { id: 'Engineer', label: 'Engineer' },
      bio: 'Follows white rabbits.',
    });
  }, 60_000);

  it("answers userinfo's idp fresh from the upstream, not from the sign-in", async () => {
    upstream.accounts.set('alice', { ...alice, job_title: 'Architect', about: { bio: 'Late, late.' } });
    try {
      const info = await userinfo(aliceTokens.access_token);
      expect(info.body.idp).toMatchObject({ job: { id: 'Architect', label: 'Architect' }, bio: 'Late, late.' });
    } finally {
      upstream.accounts.set('alice', alice);
    }
  });

  it('sends the browser straight to the provider for idp_hint, and links the same user by the upstream subject', async () => {
    const context = await browser.newContext();
    const { page, url, back, exchange } = await startSignIn(context, { idp_hint: 'acme' });
    await page.goto(url.href);
    await signInUpstream(page, 'alice');
    // Consent was given in the first sign-in: no page this time.
    await page.waitForURL('https://app.example.com/**');
    expect(back.url?.searchParams.get('error')).toBeNull();
    const tokens = await exchange();
    await context.close();
    expect(claimsOf(tokens.access_token).sub).toBe(claimsOf(aliceTokens.access_token).sub);
    const [{ count }] = await dataSource.query(
      `SELECT count(*)::int AS "count" FROM "identity"."users" WHERE "idp_subject" = 'alice'`,
    );
    expect(count).toBe(1);
  }, 60_000);

  it("refuses an address outside the tenant's domains: its provider cannot take another organization's address", async () => {
    upstream.accounts.set('mallory', { name: 'Mallory', email: 'mallory@other.example', email_verified: true });
    const context = await browser.newContext();
    const { page, url, back } = await startSignIn(context, { idp_hint: 'acme', ui_locales: 'en' });
    await page.goto(url.href);
    await signInUpstream(page, 'mallory');
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain("outside your organization's domains");
    expect(back.url).toBeUndefined();
    await context.close();
    const rows = await dataSource.query(`SELECT 1 FROM "identity"."users" WHERE "idp_subject" = 'mallory'`);
    expect(rows).toEqual([]);
  }, 60_000);

  it('never takes over a local account with the same e-mail address: an error page, the account untouched', async () => {
    const context = await axeContext(browser);
    const { page, url, back } = await startSignIn(context);
    await page.goto(url.href);
    await typeAtLoginPage(page, 'carol@acme.example');
    await signInUpstream(page, 'carol');
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('An account with this e-mail address already exists');
    await expectNoAxeViolations(page);
    expect(back.url).toBeUndefined();
    await context.close();
    const rows = await dataSource.query(
      `SELECT "display_name", "idp_subject" FROM "identity"."users" WHERE "email" = 'carol@acme.example'`,
    );
    expect(rows).toEqual([{ display_name: 'Carol Local', idp_subject: null }]);
  }, 60_000);

  it.each([
    ['ja', '組織のログインサービスに現在接続できません。'],
    ['en', "Your organization's sign-in service cannot be reached right now."],
    ['ar', 'تعذّر الوصول إلى خدمة تسجيل الدخول في مؤسستك حاليًا.'],
  ])(
    'shows a page in the language of the sign-in (%s) when the provider is down at login, with no axe violations',
    async (locale, text) => {
      const context = await axeContext(browser);
      const { page, url } = await startSignIn(context, { ui_locales: locale });
      await page.goto(url.href);
      await page.fill('#login', 'dan@down.example');
      await page.fill('#password', 'x');
      const [answer] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'POST'),
        page.press('#password', 'Enter'),
      ]);
      expect(answer.status()).toBe(502);
      expect(await page.getAttribute('html', 'lang')).toBe(locale);
      expect(await page.getAttribute('html', 'dir')).toBe(locale === 'ar' ? 'rtl' : 'ltr');
      expect(await page.getByRole('alert').textContent()).toContain(text);
      await expectNoAxeViolations(page);
      await context.close();
    },
    60_000,
  );

  it("stops the tenant's users at the next refresh once the tenant is disabled (unauthorized_client)", async () => {
    const refresh = () => oidc.refreshTokenGrant(client, aliceTokens.refresh_token as string);
    await dataSource.query(`UPDATE "identity"."tenants" SET "enabled" = false WHERE "name" = 'acme'`);
    try {
      await expect(refresh()).rejects.toMatchObject({ error: 'unauthorized_client', status: 400 });
    } finally {
      await dataSource.query(`UPDATE "identity"."tenants" SET "enabled" = true WHERE "name" = 'acme'`);
    }
    aliceTokens = await refresh();
  });

  it("answers userinfo 500 server_error while the tenant's provider configuration is broken (a secret that does not open)", async () => {
    const [{ sealed }] = await dataSource.query(
      `SELECT "client_secret_ciphertext" AS "sealed" FROM "identity"."tenant_identity_providers" p JOIN "identity"."tenants" t ON t.id = p.tenant_id WHERE t.name = 'acme'`,
    );
    const setSecret = (value: Buffer) =>
      dataSource.query(
        `UPDATE "identity"."tenant_identity_providers" SET "client_secret_ciphertext" = $1 WHERE "tenant_id" = (SELECT "id" FROM "identity"."tenants" WHERE "name" = 'acme')`,
        [value],
      );
    await setSecret(Buffer.from('not a sealed secret'));
    try {
      expect(await userinfo(aliceTokens.access_token)).toMatchObject({ status: 500, body: { error: 'server_error' } });
    } finally {
      await setSecret(sealed as Buffer);
    }
    expect((await userinfo(aliceTokens.access_token)).status).toBe(200);
  });

  it('answers userinfo 502 bad_gateway when the provider cannot be reached', async () => {
    await upstream.stop();
    expect(await userinfo(aliceTokens.access_token)).toMatchObject({ status: 502, body: { error: 'bad_gateway' } });
  });
});
