import 'reflect-metadata';
import { type UsersService } from '@fed/identity';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { type RunningService } from '@fed/server';
import * as oidc from 'openid-client';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { type DataSource } from 'typeorm';
import { expectNoAxeViolations } from '../testing/axe';
import { bootAuthService, registryOf } from '../testing/boot-auth-service';
import { axeContext, describeWithChromium, launchChromium } from '../testing/chromium';
import { type SmtpMailbox, accountLinkIn, startSmtpMailbox } from '../testing/smtp-mailbox';

const REDIRECT_URI = 'https://app.example.com/callback';
const PASSWORD = 'violet tractor pebble harbor';

describeWithChromium('signup-browser.spec')('sign-up, confirmation and password reset in headless Chromium', () => {
  let database: TestDatabase;
  let mailbox: SmtpMailbox;
  let service: RunningService;
  let dataSource: DataSource;
  let users: UsersService;
  let browser: Browser;
  let config: oidc.Configuration;

  beforeAll(async () => {
    database = await createTestDatabase();
    mailbox = await startSmtpMailbox();
    service = await bootAuthService({
      databaseUrl: database.url,
      env: { SMTP_URL: mailbox.url, SMTP_FROM: 'no-reply@example.com', NOTIFY_RETRY_DELAY_SECONDS: '1' },
    });
    ({ dataSource, users } = registryOf(service));
    const { clientSecret } = await registryOf(service).clients.create({
      clientId: 'web',
      name: 'Web',
      grantTypes: ['authorization_code', 'refresh_token'],
      scopes: ['openid', 'profile', 'chat:exec'],
      redirectUris: [REDIRECT_URI],
    });
    config = await oidc.discovery(
      new URL(service.config.auth.issuer),
      'web',
      undefined,
      oidc.ClientSecretBasic(clientSecret),
      {
        execute: [oidc.allowInsecureRequests],
      },
    );
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await service?.shutdown('test');
    await mailbox?.close();
    await database?.drop();
  });

  /** An authorization request of the application in a new browser; `finish` exchanges the code it ends with. */
  async function startSignIn(context: BrowserContext) {
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
    const page = await context.newPage();
    let callback: URL | undefined;
    await page.route('https://app.example.com/**', async (route) => {
      callback = new URL(route.request().url());
      await route.fulfill({ status: 200, contentType: 'text/plain', body: 'signed in' });
    });
    await page.goto(url.href);
    const finish = async () => {
      const allow = page.getByRole('button', { name: 'Allow' });
      await Promise.race([allow.waitFor(), page.waitForURL('https://app.example.com/**')]);
      if (!callback) await allow.click();
      await page.waitForURL('https://app.example.com/**');
      return oidc.authorizationCodeGrant(config, callback as URL, { pkceCodeVerifier: verifier, expectedState: state });
    };
    return { page, finish };
  }

  async function signIn(page: Page, login: string, password: string): Promise<void> {
    await page.getByLabel('E-mail address or username').fill(login);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  it('signs up from the login page, confirms by e-mail, waits for approval, then signs in', async () => {
    const context = await browser.newContext();
    const { page } = await startSignIn(context);
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.getByLabel('E-mail address').fill('iris@example.com');
    await page.getByLabel('Username').fill('iris');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Check your e-mail' }).waitFor();

    // Back on the login page of the same sign-in: the right password of an unconfirmed account.
    await page.getByRole('link', { name: 'Back to sign-in' }).click();
    await signIn(page, 'iris', PASSWORD);
    expect(await page.getByRole('alert').textContent()).toContain('Confirm your e-mail address first');
    expect(await page.getByRole('link', { name: 'Get a new confirmation link' }).count()).toBe(1);

    const link = accountLinkIn(await mailbox.nth('iris@example.com', 1));
    await page.goto(link.href);
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('heading', { name: 'Your e-mail address is confirmed' }).waitFor();
    const [row] = (await dataSource.query(
      `SELECT "id", "status" FROM "identity"."users" WHERE "email" = 'iris@example.com'`,
    )) as {
      id: string;
      status: string;
    }[];
    expect(row.status).toBe('pending');

    const waiting = await startSignIn(context);
    await signIn(waiting.page, 'iris@example.com', PASSWORD);
    expect(await waiting.page.getByRole('alert').textContent()).toContain(
      'An administrator has not approved your account yet.',
    );

    await users.approve(row.id);
    const approved = await startSignIn(context);
    await signIn(approved.page, 'iris', PASSWORD);
    const tokens = await approved.finish();
    expect(tokens.claims()?.sub).toBe(row.id);
    await context.close();
  }, 60_000);

  it('resets a forgotten password: the old refresh token is refused, the new password works and the old one does not', async () => {
    await users.create({
      email: 'jude@example.com',
      username: 'jude',
      displayName: 'Jude',
      password: PASSWORD,
      status: 'approved',
    });
    const before = await browser.newContext();
    const first = await startSignIn(before);
    await signIn(first.page, 'jude', PASSWORD);
    const tokens = await first.finish();
    await before.close();

    const context = await browser.newContext();
    const { page } = await startSignIn(context);
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.getByLabel('E-mail address').fill('jude@example.com');
    await page.getByRole('button', { name: 'Send the link' }).click();
    await page.getByRole('heading', { name: 'Check your e-mail' }).waitFor();
    await page.goto(accountLinkIn(await mailbox.nth('jude@example.com', 1)).href);
    await page.getByLabel('New password').fill('jude1234');
    await page.getByRole('button', { name: 'Save the password' }).click();
    expect(await page.getByRole('alert').textContent()).toContain('This password is too easy to guess.');
    await page.getByLabel('New password').fill('amber glacier whistle 9');
    await page.getByRole('button', { name: 'Save the password' }).click();
    await page.getByRole('heading', { name: 'Your password has been changed' }).waitFor();

    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token as string)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    // Tokens carry whole seconds: a sign-in in the second of the reset would count as before it.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await page.getByRole('link', { name: 'Back to sign-in' }).click();
    await signIn(page, 'jude', PASSWORD);
    expect(await page.getByRole('alert').textContent()).toContain('The login or password is wrong.');
    await context.close();

    const after = await browser.newContext();
    const again = await startSignIn(after);
    await signIn(again.page, 'jude', 'amber glacier whistle 9');
    expect((await again.finish()).refresh_token).toBeDefined();
    await after.close();
  }, 60_000);

  describe.each(['ja', 'en', 'ar'])('every account page in %s passes axe-core (WCAG 2.1 AA)', (locale) => {
    it('has no violations on the sign-up, resend, forgotten-password, link and message pages', async () => {
      const context = await axeContext(browser);
      const page = await context.newPage();
      const base = `${service.url}/federation/auth/v1/account`;
      const check = async (url?: string) => {
        if (url) await page.goto(url);
        expect({ url: page.url(), lang: await page.getAttribute('html', 'lang') }).toEqual({
          url: page.url(),
          lang: locale,
        });
        expect(await page.getAttribute('html', 'dir')).toBe(locale === 'ar' ? 'rtl' : 'ltr');
        await expectNoAxeViolations(page);
      };
      await check(`${base}/signup?lang=${locale}`);
      // The form refused: a weak password, with its feedback.
      await page.locator('#email').fill(`axe-${locale}@example.com`);
      await page.locator('#username').fill(`axe-${locale}`);
      await page.locator('#password').fill('password123');
      await page.locator('button[type=submit]').click();
      await page.locator('[role=alert]').waitFor();
      await check();
      await page.locator('#password').fill(PASSWORD);
      await page.locator('button[type=submit]').click();
      await page.locator('h1').waitFor();
      await check();
      await check(`${base}/resend?lang=${locale}`);
      await check(`${base}/password/forgot?lang=${locale}`);
      const link = accountLinkIn(await mailbox.nth(`axe-${locale}@example.com`, 1));
      await check(link.href);
      await page.locator('button[type=submit]').click();
      await page.locator('h1').waitFor();
      await check();
      await check(link.href);
      await check(`${base}/password/reset?token=unknown&lang=${locale}`);
      await context.close();
    }, 60_000);
  });
});
