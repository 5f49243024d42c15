import 'reflect-metadata';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { type RunningService } from '@fed/server';
import { createHash, randomBytes } from 'node:crypto';
import { type Browser, type Page } from 'playwright-core';
import { type UiLocale } from '@fed/identity';
import { signInText } from './messages';
import { signOutText } from '../sign-out/messages';
import { axeViolations, expectNoAxeViolations } from '../../testing/axe';
import { axeContext, describeWithChromium, launchChromium } from '../../testing/chromium';
import { bootAuthService, createApprovedUser, registryOf } from '../../testing/boot-auth-service';

const REDIRECT_URI = 'https://app.example.com/callback';
const PASSWORD = 'correct horse battery staple';
const CHALLENGE = createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');

/** WCAG 2.1 A and AA (axe-core) on every page of the login, consent, error and sign-out flows; keyboard-only login. */
describeWithChromium('pages-accessibility.spec')('accessibility of the provider pages in headless Chromium', () => {
  let database: TestDatabase;
  let service: RunningService;
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    service = await bootAuthService({ databaseUrl: database.url, env: { OIDC_DYNAMIC_REGISTRATION: 'true' } });
    base = `${service.url}/federation/auth/v1`;
    const { clients, users } = registryOf(service);
    await clients.create({
      clientId: 'web',
      name: 'Web <App>',
      grantTypes: ['authorization_code', 'refresh_token'],
      scopes: ['openid', 'profile', 'email', 'chat:exec', 'chat:history', 'a2a:all'],
      redirectUris: [REDIRECT_URI],
    });
    // One user per test: each consents once, after which the consent page is not shown again.
    for (const login of ['grace-ja', 'grace-en', 'grace-ar', 'grace-keyboard', 'grace-mcp']) {
      await createApprovedUser(users, login, { password: PASSWORD, role: 'user' });
    }
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await service?.shutdown('test');
    await database?.drop();
  });

  const authorizeUrl = (locale: UiLocale) =>
    `${base}/authorize?${new URLSearchParams({
      client_id: 'web',
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      scope: 'openid profile email chat:exec chat:history a2a:all',
      state: 'xyz',
      code_challenge: CHALLENGE,
      code_challenge_method: 'S256',
      ui_locales: locale,
    })}`;

  async function newPage(locale: UiLocale): Promise<Page> {
    const context = await axeContext(browser, { locale });
    const page = await context.newPage();
    await page.route('https://app.example.com/**', (route) =>
      route.fulfill({ status: 200, contentType: 'text/plain', body: 'back in the application' }),
    );
    return page;
  }

  it.each([['ja'], ['en'], ['ar']] as const)(
    'passes WCAG 2.1 AA on login, login with an error, consent, error and sign-out pages in %s',
    async (locale) => {
      const page = await newPage(locale);
      const checked: string[] = [];
      const check = async (title: string) => {
        expect(await page.title()).toBe(title);
        expect(await page.getAttribute('html', 'lang')).toBe(locale);
        await expectNoAxeViolations(page);
        checked.push(title);
      };

      await page.goto(authorizeUrl(locale));
      await check(signInText(locale, 'signInTitle'));
      await page.getByLabel(signInText(locale, 'loginLabel')).fill(`grace-${locale}`);
      await page.getByLabel(signInText(locale, 'passwordLabel'), { exact: true }).fill('wrong password');
      await page.getByRole('button', { name: signInText(locale, 'signInButton') }).click();
      await page.getByRole('alert').waitFor();
      await check(signInText(locale, 'signInTitle'));

      await page.getByLabel(signInText(locale, 'passwordLabel'), { exact: true }).fill(PASSWORD);
      await page.getByRole('button', { name: signInText(locale, 'signInButton') }).click();
      await page.getByRole('button', { name: signInText(locale, 'allow') }).waitFor();
      await check(signInText(locale, 'consentTitle'));
      await page.getByRole('button', { name: signInText(locale, 'allow') }).click();
      await page.waitForURL('https://app.example.com/**');

      await page.goto(`${base}/interaction/unknown-interaction`);
      await check(signInText(locale, 'errorTitle'));

      await page.goto(`${base}/logout?${new URLSearchParams({ client_id: 'web', ui_locales: locale })}`);
      await check(signOutText(locale, 'signOutTitle'));
      await page.getByRole('button', { name: signOutText(locale, 'signOutButton') }).click();
      await page.getByRole('status').waitFor();
      await check(signOutText(locale, 'signedOutTitle'));

      expect(checked).toHaveLength(6);
      await page.context().close();
    },
    60_000,
  );

  it('passes WCAG 2.1 AA on the consent page of a client that registered itself, which names it unverified', async () => {
    const registration = await fetch(`${base}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Some <MCP> client',
        redirect_uris: ['https://mcp.example.net/callback'],
        token_endpoint_auth_method: 'none',
      }),
    });
    expect(registration.status).toBe(201);
    const { client_id: clientId } = (await registration.json()) as { client_id: string };
    const page = await newPage('en');
    await page.route('https://mcp.example.net/**', (route) =>
      route.fulfill({ status: 200, contentType: 'text/plain', body: 'back in the MCP client' }),
    );
    await page.goto(
      `${base}/authorize?${new URLSearchParams({
        client_id: clientId,
        redirect_uri: 'https://mcp.example.net/callback',
        response_type: 'code',
        scope: 'mcp:all',
        state: 'xyz',
        code_challenge: CHALLENGE,
        code_challenge_method: 'S256',
        ui_locales: 'en',
      })}`,
    );
    await page.getByLabel(signInText('en', 'loginLabel')).fill('grace-mcp');
    await page.getByLabel(signInText('en', 'passwordLabel'), { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: signInText('en', 'signInButton') }).click();
    await page.getByRole('button', { name: signInText('en', 'allow') }).waitFor();
    expect(await page.title()).toBe(signInText('en', 'consentTitle'));
    expect(await page.textContent('body')).toContain(
      signInText('en', 'consentClientUnverified', { host: 'mcp.example.net' }),
    );
    await expectNoAxeViolations(page);
    await page.getByRole('button', { name: signInText('en', 'allow') }).click();
    await page.waitForURL('https://mcp.example.net/**');
    await page.context().close();
  }, 60_000);

  it('finds violations where there are some (the check can fail)', async () => {
    const page = await newPage('en');
    await page.setContent('<html><body><input type="text"><img src="x.png"></body></html>');
    const found = (await axeViolations(page)).map((violation) => violation.id);
    expect(found).toEqual(expect.arrayContaining(['html-has-lang', 'image-alt', 'label']));
    await page.context().close();
  });

  it('lets a keyboard-only user sign in: Tab through the fields in order, Enter submits, the error is announced', async () => {
    const page = await newPage('en');
    await page.goto(authorizeUrl('en'));
    // The focused element by its id, or a button by its text.
    const focused = async () => {
      const element = page.locator(':focus');
      return (await element.getAttribute('id')) ?? (await element.textContent());
    };

    expect(await focused()).toBe('login');
    await page.keyboard.type('grace-keyboard');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('password');
    await page.keyboard.type('wrong password');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe(signInText('en', 'signInButton'));
    await page.keyboard.press('Shift+Tab');
    expect(await focused()).toBe('password');
    await page.keyboard.press('Enter');

    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe(signInText('en', 'wrongCredentials'));
    expect(await focused()).toBe('login');
    expect(await page.getAttribute('#password', 'aria-describedby')).toBe('form-error');
    expect(await page.inputValue('#login')).toBe('grace-keyboard');

    await page.keyboard.press('Tab');
    expect(await focused()).toBe('password');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    const allow = page.getByRole('button', { name: signInText('en', 'allow') });
    await allow.waitFor();
    await allow.focus();
    // The request itself proves the login: Chromium sends a keyboard-started navigation past the test's
    // route, so the callback is observed, not answered.
    const [callback] = await Promise.all([
      page.waitForRequest((request) => request.url().startsWith(REDIRECT_URI)),
      page.keyboard.press('Enter'),
    ]);
    expect(new URL(callback.url()).searchParams.get('code')).toEqual(expect.any(String));
    expect(new URL(callback.url()).searchParams.get('state')).toBe('xyz');
    await page.context().close();
  }, 60_000);
});
