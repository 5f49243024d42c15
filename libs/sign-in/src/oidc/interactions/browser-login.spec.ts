import 'reflect-metadata';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { type RunningService } from '@fed/server';
import * as oidc from 'openid-client';
import { type Browser } from 'playwright-core';
import { bootAuthService, registryOf } from '../../testing/boot-auth-service';
import { describeWithChromium, launchChromium } from '../../testing/chromium';

const REDIRECT_URI = 'https://app.example.com/callback';
const PASSWORD = 'correct horse battery staple';

describeWithChromium('browser-login.spec')('login and consent pages in headless Chromium', () => {
  let database: TestDatabase;
  let service: RunningService;
  let browser: Browser;
  let secret: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    service = await bootAuthService({ databaseUrl: database.url });
    const { clients, users } = registryOf(service);
    secret = (
      await clients.create({
        clientId: 'web',
        name: 'Web <App>',
        grantTypes: ['authorization_code', 'refresh_token'],
        scopes: ['openid', 'profile', 'chat:exec'],
        redirectUris: [REDIRECT_URI],
      })
    ).clientSecret;
    await users.create({
      email: 'grace@example.com',
      username: 'grace',
      displayName: 'Grace',
      password: PASSWORD,
      role: 'user',
      status: 'approved',
    });
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await service?.shutdown('test');
    await database?.drop();
  });

  it('signs in with the form, consents, and lands on the redirect URI with a code the client can exchange', async () => {
    const config = await oidc.discovery(
      new URL(service.config.auth.issuer),
      'web',
      undefined,
      oidc.ClientSecretBasic(secret),
      {
        execute: [oidc.allowInsecureRequests],
      },
    );
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      scope: 'openid profile chat:exec',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      ui_locales: 'en',
    });

    const context = await browser.newContext();
    const page = await context.newPage();
    let callback: URL | undefined;
    await page.route('https://app.example.com/**', async (route) => {
      callback = new URL(route.request().url());
      await route.fulfill({ status: 200, contentType: 'text/plain', body: 'signed in' });
    });

    const login = await page.goto(url.href);
    expect(login?.headers()['x-frame-options']).toBe('DENY');
    expect(login?.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(await page.getAttribute('html', 'lang')).toBe('en');
    // The client's name is shown as text, not markup.
    expect(await page.textContent('main')).toContain('Web <App>');
    // Labelled fields: reachable by their accessible names.
    await page.getByLabel('E-mail address or username').fill('grace');
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect(await page.getByRole('alert').textContent()).toContain('The login or password is wrong.');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();

    await page.getByRole('button', { name: 'Allow' }).waitFor();
    expect(await page.textContent('ul')).toContain('chat:exec');
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL('https://app.example.com/**');
    expect(callback?.searchParams.get('state')).toBe(state);

    const cookies = await context.cookies(service.url);
    expect(cookies.length).toBeGreaterThan(0);
    for (const cookie of cookies) {
      expect(cookie.httpOnly).toBe(true);
      expect(cookie.sameSite).toBe('Lax');
    }

    const tokens = await oidc.authorizationCodeGrant(config, callback as URL, {
      pkceCodeVerifier: verifier,
      expectedState: state,
      idTokenExpected: true,
    });
    expect(tokens.claims()?.sub).toBeDefined();
    await context.close();
  }, 60_000);
});
