import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { type ProcessHandle, buildDist, buildWeb, cleanEnv, freePort, startProcess } from '@fed/testing';
import { axeContext, describeWithChromium, expectNoAxeViolations, launchChromium } from '@fed/sign-in/testing';
import { type DemoCredentials } from './demo-realm';
import type { PageDocument } from './testing/page-globals';
import { htmlLangDir, signInToWebApp, submitLoginForm, tabTo } from './testing/web-app';

declare const document: PageDocument;
declare const navigator: { clipboard: { readText(): Promise<string> } };

const main = 'dist/apps/platform/src/main.js';
const cli = 'dist/apps/platformctl/src/main.js';
const PASSWORD = 'a long passphrase for the console';

interface AdminClient {
  clientId: string;
  redirectUris: string[];
  scopes: string[];
  enabled: boolean;
}

/** Polls `check` until it holds (a revoked secret or key is refused within seconds, not always at once). */
async function until(check: () => Promise<boolean>, what: string, timeout = 20_000): Promise<void> {
  const deadline = Date.now() + timeout;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not in ${timeout} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * Waits out the token endpoint's client cache (2 s, CLIENT_CACHE_WINDOW_MS of libs/identity). The token endpoint is
 * then asked once, not polled: each wrong secret (the one a rotation replaced) counts toward the lock of the client
 * and address after 5 (ClientThrottle); a disabled client's right secret does not.
 */
const settled = () => new Promise((resolve) => setTimeout(resolve, 2_500));

/** Records the bearer token the page sends to the admin API (the signed-in account's own). */
function captureToken(page: Page): () => string {
  let token: string | undefined;
  page.on('request', (request) => {
    const header = request.headers()['authorization'];
    if (header?.startsWith('Bearer ') && new URL(request.url()).pathname.startsWith('/api/v1/admin/')) token = header;
  });
  return () => {
    if (!token) throw new Error('the page sent no admin request with a bearer token');
    return token;
  };
}

/** Issue 38, "The screens: Clients, Gateway API keys": the demo administrator (a platform operator) manages them. */
describeWithChromium('console-clients-keys-e2e.spec')('the console: clients and gateway API keys', () => {
  let dataDir: string;
  let base: string;
  let platform: ProcessHandle;
  let browser: Browser;
  let demo: DemoCredentials;

  async function platformctl(args: string[]): Promise<string> {
    const handle = startProcess(cli, args, cleanEnv({ DATA_DIR: dataDir }));
    const code = await handle.exited(60_000);
    if (code !== 0) throw new Error(`platformctl ${args.join(' ')}: ${code}\n${handle.output()}`);
    return handle.output();
  }

  /** The status of a client_credentials token request with this client id and secret. */
  async function tokenStatus(clientId: string, secret: string): Promise<number> {
    const response = await fetch(`${base}/federation/auth/v1/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials',
    });
    await response.arrayBuffer();
    return response.status;
  }

  /** The status of the gateway's model list for this key. */
  async function gatewayStatus(key: string): Promise<number> {
    const response = await fetch(`${base}/llm/v1/models`, { headers: { authorization: `Bearer ${key}` } });
    await response.arrayBuffer();
    return response.status;
  }

  /** The secret the open secret dialog shows, after checking the dialog's warning and copy button. */
  async function readSecret(page: Page, title: string, subject: string): Promise<string> {
    const dialog = page.getByRole('dialog', { name: title });
    await dialog.waitFor();
    await dialog.getByText(subject, { exact: true }).waitFor();
    await dialog.getByRole('note').getByText('it is shown only this once').waitFor();
    const secret = await dialog.getByRole('textbox').inputValue();
    expect(secret.length).toBeGreaterThan(20);
    return secret;
  }

  beforeAll(async () => {
    buildDist();
    buildWeb();
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'fed-console-clients-keys-'));
    const port = await freePort();
    base = `http://localhost:${port}`;
    platform = startProcess(main, [], cleanEnv({ PORT: String(port), DATA_DIR: dataDir }));
    await platform.waitForOutput(/Press Ctrl-C to stop/, 60_000);
    demo = JSON.parse(readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8')) as DemoCredentials;
    const realm = path.join(dataDir, 'console-clients-keys.json');
    writeFileSync(
      realm,
      JSON.stringify({
        realm: 'federation',
        users: [
          // The tenant's administrator, not a platform operator.
          { email: 'tara@example.com', username: 'tara', displayName: 'Tara', role: 'admin', password: PASSWORD },
          { email: 'hal@example.com', username: 'hal', displayName: 'Hal', password: PASSWORD },
        ],
      }),
    );
    await platformctl(['realm', 'import', realm]);
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    platform?.child.kill('SIGKILL');
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('lists and searches clients, creates one (a refusal at its field, the secret shown once with copy), edits, rotates, disables, enables and deletes; the protected web client never stops', async () => {
    const { context, page } = await signInToWebApp(browser, base, demo.user, {
      locale: 'en',
      permissions: ['clipboard-read', 'clipboard-write'],
    });
    const token = captureToken(page);
    const clientStatus = async (clientId: string) => {
      const response = await fetch(`${base}/api/v1/admin/clients/${clientId}`, { headers: { authorization: token() } });
      await response.arrayBuffer();
      return response.status;
    };
    const getClient = async (clientId: string) => {
      const response = await fetch(`${base}/api/v1/admin/clients/${clientId}`, { headers: { authorization: token() } });
      expect(response.status).toBe(200);
      return (await response.json()) as AdminClient;
    };
    await page.goto(`${base}/console/clients`);
    await page.getByRole('heading', { name: 'Clients', level: 2 }).waitFor();
    const all = page.getByRole('region', { name: 'All clients' });
    await all.getByRole('rowheader', { name: demo.service.clientId, exact: true }).waitFor();

    // Search: the console's own client, protected, offers neither disable nor delete.
    await page.getByRole('searchbox', { name: 'Search' }).fill('web');
    await page.getByRole('button', { name: 'Apply' }).click();
    const web = page.locator('tr[data-client-id="web"]');
    await web.getByText('(protected: the console signs in with it)').waitFor();
    expect(await all.getByRole('rowheader').allTextContents()).toEqual(['web']);
    expect(await web.getByRole('button').allTextContents()).toEqual(['Edit']);

    // An application: the API refuses an http redirect URI, shown at that field, which gets the focus.
    await page.getByRole('button', { name: 'New client' }).click();
    const form = page.getByRole('dialog', { name: 'New client' });
    await form.getByLabel('Client ID').fill('crm');
    await form.getByLabel('Name').fill('CRM');
    await form.getByLabel('Authorization code (users sign in)').check();
    await form.getByLabel('Redirect URIs').fill('http://crm.example.com/callback');
    await form.getByLabel('Scopes', { exact: true }).fill('openid chat:exec');
    await form.getByRole('button', { name: 'Create' }).click();
    const uris = form.getByRole('textbox', { name: 'Redirect URIs' });
    await form.locator('.field-error').getByText('must use https (http only for localhost)').waitFor();
    expect(await uris.getAttribute('aria-invalid')).toBe('true');
    const described = (await uris.getAttribute('aria-describedby'))!.split(' ');
    expect(await page.evaluate((id) => document.querySelector(`[id="${id}"]`)?.textContent, described[1]!)).toMatch(
      /must use https/,
    );
    expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('redirectUris');
    await uris.fill('https://crm.example.com/callback');
    await form.getByRole('button', { name: 'Create' }).click();
    const crmSecret = await readSecret(page, 'The client secret', 'Client: crm');
    await page.getByRole('dialog', { name: 'The client secret' }).getByRole('button', { name: 'Copy' }).click();
    await page.getByRole('dialog', { name: 'The client secret' }).getByText('Copied.').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(crmSecret);
    await page.getByRole('button', { name: 'I stored it: close' }).click();
    await page.getByRole('dialog', { name: 'The client secret' }).waitFor({ state: 'hidden' });
    // Gone: nowhere in the page once closed.
    expect(await page.content()).not.toContain(crmSecret);
    expect(await platformctl(['clients', 'list'])).toMatch(
      /^crm {2}Published {2}confidential {2}tenant=default {2}.*enabled {2}grants=authorization_code {2}scopes=openid chat:exec/m,
    );

    // A service: its secret works at the token endpoint.
    await page.getByRole('button', { name: 'New client' }).click();
    await form.getByLabel('Client ID').fill('billing-sync');
    await form.getByLabel('Name').fill('Billing sync');
    await form.getByLabel('Client credentials (a service)').check();
    await form.getByLabel('Scopes', { exact: true }).fill('logs:read');
    await form.getByRole('button', { name: 'Create' }).click();
    const firstSecret = await readSecret(page, 'The client secret', 'Client: billing-sync');
    await page.getByRole('button', { name: 'I stored it: close' }).click();
    expect(await page.content()).not.toContain(firstSecret);
    expect(await tokenStatus('billing-sync', firstSecret)).toBe(200);

    // Search finds it alone.
    await page.getByRole('searchbox', { name: 'Search' }).fill('billing');
    await page.getByRole('button', { name: 'Apply' }).click();
    await all.getByRole('rowheader', { name: 'billing-sync' }).waitFor();
    expect(await all.getByRole('rowheader').allTextContents()).toEqual(['billing-sync']);

    // Rotate: the old secret is refused, the new one works.
    const billing = page.locator('tr[data-client-id="billing-sync"]');
    await billing.getByRole('button', { name: 'Rotate secret' }).click();
    const rotate = page.getByRole('dialog', { name: 'Rotate secret' });
    await rotate.getByText('Rotate the secret of billing-sync?').waitFor();
    await rotate.getByRole('button', { name: 'Rotate secret' }).click();
    const secondSecret = await readSecret(page, 'The client secret', 'Client: billing-sync');
    expect(secondSecret).not.toBe(firstSecret);
    await page.getByRole('button', { name: 'I stored it: close' }).click();
    await settled();
    expect(await tokenStatus('billing-sync', firstSecret)).toBe(401);
    expect(await tokenStatus('billing-sync', secondSecret)).toBe(200);

    // Disable, then enable: the token endpoint follows.
    await billing.getByRole('button', { name: 'Disable' }).click();
    await page.getByRole('dialog', { name: 'Disable' }).getByRole('button', { name: 'Disable' }).click();
    await billing.getByRole('cell', { name: 'Disabled' }).waitFor();
    expect((await getClient('billing-sync')).enabled).toBe(false);
    await settled();
    expect(await tokenStatus('billing-sync', secondSecret)).toBe(401);
    await billing.getByRole('button', { name: 'Enable' }).click();
    await page.getByRole('dialog', { name: 'Enable' }).getByRole('button', { name: 'Enable' }).click();
    await billing.getByRole('cell', { name: 'Enabled' }).waitFor();
    expect((await getClient('billing-sync')).enabled).toBe(true);
    await settled();
    expect(await tokenStatus('billing-sync', secondSecret)).toBe(200);

    // Edit the application's redirect URIs and scopes.
    await page.getByRole('searchbox', { name: 'Search' }).fill('crm');
    await page.getByRole('button', { name: 'Apply' }).click();
    const crm = page.locator('tr[data-client-id="crm"]');
    await crm.getByRole('button', { name: 'Edit' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit crm' });
    expect(await edit.getByLabel('Redirect URIs').inputValue()).toBe('https://crm.example.com/callback');
    await edit.getByLabel('Redirect URIs').fill('https://crm.example.com/callback\nhttp://localhost:8080/callback');
    await edit.getByLabel('Scopes', { exact: true }).fill('openid chat:exec chat:history');
    await edit.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').getByText('Saved: crm').waitFor();
    expect(await getClient('crm')).toMatchObject({
      redirectUris: ['https://crm.example.com/callback', 'http://localhost:8080/callback'],
      scopes: ['openid', 'chat:exec', 'chat:history'],
    });
    await crm.getByRole('cell', { name: 'openid chat:exec chat:history' }).waitFor();

    // Delete asks first: Cancel keeps it.
    await crm.getByRole('button', { name: 'Delete' }).click();
    const remove = page.getByRole('dialog', { name: 'Delete' });
    await remove.getByText('Delete crm? Its sessions and tokens end').waitFor();
    await remove.getByRole('button', { name: 'Cancel' }).click();
    await remove.waitFor({ state: 'hidden' });
    expect(await clientStatus('crm')).toBe(200);
    await crm.getByRole('button', { name: 'Delete' }).click();
    await remove.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No client matches.').waitFor();
    // Its row and button are gone: the focus is on the screen's heading, not lost on the page's body.
    await until(async () => (await page.evaluate(() => document.activeElement?.id)) === 'clients-title', 'focus');
    expect(await clientStatus('crm')).toBe(404);
    await context.close();
  }, 120_000);

  it('creates a gateway key shown once that the gateway accepts, edits its limits, models and expiry, and revokes it behind a confirmation (then 401)', async () => {
    const { context, page } = await signInToWebApp(browser, base, demo.user, { locale: 'en' });
    const token = captureToken(page);
    await page.goto(`${base}/console/keys`);
    await page.getByRole('heading', { name: 'Gateway API keys', level: 2 }).waitFor();
    await page.getByRole('button', { name: 'New key' }).click();
    const form = page.getByRole('dialog', { name: 'New key' });
    await form.getByLabel('Name').fill('ci-bot');
    await form.getByRole('button', { name: 'Create' }).click();
    const key = await readSecret(page, 'The new API key', 'Key: ci-bot');
    expect(key).toMatch(/^fed_/);
    await page.getByRole('button', { name: 'I stored it: close' }).click();
    await page.getByRole('dialog', { name: 'The new API key' }).waitFor({ state: 'hidden' });
    expect(await page.content()).not.toContain(key);
    expect(await gatewayStatus(key)).toBe(200);

    const row = page.locator('tr', { has: page.getByRole('rowheader', { name: 'ci-bot' }) });
    await row.getByRole('cell', { name: 'Live' }).waitFor();
    expect(await row.locator('code').textContent()).toBe(`fed_...${key.slice(-4)}`);
    await row.getByRole('button', { name: 'Edit limits' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit ci-bot' });
    // A refusal of the API at its field.
    await edit.getByLabel('Requests per minute').fill('lots');
    await edit.getByRole('button', { name: 'Save' }).click();
    await edit.locator('.field-error').getByText('rpm must be an integer').waitFor();
    expect(await edit.getByLabel('Requests per minute').getAttribute('aria-invalid')).toBe('true');
    const year = new Date().getUTCFullYear() + 1;
    await edit.getByLabel('Requests per minute').fill('60');
    await edit.getByLabel('Tokens per minute').fill('20000');
    await edit.getByLabel('Models').fill('demo');
    await edit.getByLabel('Expires on (through the end of that UTC day)').fill(`${year}-06-30`);
    await edit.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').getByText('Saved: ci-bot').waitFor();
    const listed = (await platformctl(['apikeys', 'list'])).split('\n').find((line) => line.includes('"ci-bot"'));
    expect(listed).toContain('  live  models=demo  rpm=60  tpm=20000  daily_budget_usd=-  networks=*  tenant=-');
    expect(listed).toContain(`expires=${year}-06-30T23:59:59.999Z`);
    await row.getByRole('cell', { name: 'demo', exact: true }).waitFor();
    expect(await gatewayStatus(key)).toBe(200);

    await row.getByRole('button', { name: 'Revoke' }).click();
    const revoke = page.getByRole('dialog', { name: 'Revoke' });
    await revoke.getByText(`Revoke the key ci-bot (fed_...${key.slice(-4)})?`).waitFor();
    await revoke.getByRole('button', { name: 'Cancel' }).click();
    await revoke.waitFor({ state: 'hidden' });
    expect(await gatewayStatus(key)).toBe(200);
    await row.getByRole('button', { name: 'Revoke' }).click();
    await revoke.getByRole('button', { name: 'Revoke' }).click();
    await row.getByRole('cell', { name: 'Revoked' }).waitFor();
    expect(await row.getByRole('button').count()).toBe(0);
    await until(async () => (await page.evaluate(() => document.activeElement?.id)) === 'keys-title', 'focus');
    await until(async () => (await gatewayStatus(key)) === 401, 'the revoked key refused');
    const revoked = await fetch(`${base}/api/v1/admin/api-keys?search=ci-bot`, { headers: { authorization: token() } });
    expect(((await revoked.json()) as { apiKeys: { name: string; state: string }[] }).apiKeys).toMatchObject([
      { name: 'ci-bot', state: 'revoked' },
    ]);
    await context.close();
  }, 90_000);

  it('shows a tenant administrator who is not an operator neither section, and her direct calls are 403', async () => {
    const { context, page } = await signInToWebApp(
      browser,
      base,
      { login: 'tara', password: PASSWORD },
      { locale: 'en' },
    );
    const token = captureToken(page);
    await page.getByRole('link', { name: 'Console' }).click();
    await page.getByRole('heading', { name: 'Users', level: 2 }).waitFor();
    await page.locator('tbody tr').first().waitFor();
    const sections = await page
      .getByRole('navigation', { name: 'Console sections' })
      .getByRole('link')
      .allTextContents();
    expect(sections).not.toContain('Clients');
    expect(sections).not.toContain('Gateway API keys');
    for (const route of ['/api/v1/admin/clients', '/api/v1/admin/api-keys']) {
      const response = await fetch(`${base}${route}`, { headers: { authorization: token() } });
      expect([route, response.status]).toEqual([route, 403]);
    }
    await context.close();
  }, 60_000);

  it('offers a plain user no console: no link, and /console/clients says it is not allowed', async () => {
    const { context, page } = await signInToWebApp(
      browser,
      base,
      { login: 'hal', password: PASSWORD },
      { locale: 'en' },
    );
    expect(await page.getByRole('link', { name: 'Console' }).count()).toBe(0);
    await page.goto(`${base}/console/clients`);
    await page.getByRole('alert').getByText('Your account may not use the console').waitFor();
    await context.close();
  }, 60_000);

  it('creates a key by keyboard alone; Escape closes the secret dialog and the focus is back on its opener', async () => {
    const { context, page } = await signInToWebApp(browser, base, demo.user, { locale: 'en' });
    await page.goto(`${base}/console/keys`);
    await page.getByRole('heading', { name: 'Gateway API keys', level: 2 }).waitFor();
    await tabTo(page, 'button[data-action="new-key"]');
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: 'New key' }).waitFor();
    // The first control has the focus.
    expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('name');
    await page.keyboard.type('keyboard-key');
    await tabTo(page, 'input[name="rpm"]');
    await page.keyboard.type('30');
    await tabTo(page, 'form.console-form button[type="submit"]');
    await page.keyboard.press('Enter');
    const secret = page.getByRole('dialog', { name: 'The new API key' });
    await secret.waitFor();
    // The copy button has the focus; Tab reaches the close button within the dialog.
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Copy');
    const key = await secret.getByRole('textbox').inputValue();
    await page.keyboard.press('Escape');
    await secret.waitFor({ state: 'hidden' });
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-action'))).toBe('new-key');
    expect(await page.content()).not.toContain(key);
    expect(
      (await platformctl(['apikeys', 'list'])).split('\n').find((line) => line.includes('"keyboard-key"')),
    ).toMatch(/  live  models=\*  rpm=30  /);
    expect(await gatewayStatus(key)).toBe(200);
    await context.close();
  }, 60_000);

  it('has no WCAG 2.1 AA violation (axe) in Japanese, English and Arabic (right to left) with the create and secret dialogs open, and the clients and keys lists fit a phone', async () => {
    for (const locale of ['ja', 'en', 'ar'] as const) {
      const context = await axeContext(browser, { locale });
      const page = await context.newPage();
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.goto(`${base}/console/clients`);
      await submitLoginForm(page, demo.user);
      await page.locator('#clients-title').waitFor();
      await page.locator('tbody tr').first().waitFor();
      if (locale === 'ar') expect(await htmlLangDir(page)).toEqual(['ar', 'rtl']);
      await page.locator('button[data-action="new-client"]').click();
      const form = page.locator('dialog[open] form.console-form');
      // With a refusal shown at its field.
      await form.locator('input[name="clientId"]').fill(`axe-${locale}`);
      await form.locator('input[value="client_credentials"]').check();
      await form.locator('input[name="scopes"]').fill('no-such:scope');
      await form.locator('button[type="submit"]').click();
      await form.locator('.field-error').waitFor();
      await expectNoAxeViolations(page);
      await form.locator('input[name="name"]').fill(`Axe ${locale}`);
      await form.locator('input[name="scopes"]').fill('logs:read');
      await form.locator('button[type="submit"]').click();
      await page.locator('dialog.secret-dialog[open]').waitFor();
      await expectNoAxeViolations(page);
      await page.keyboard.press('Escape');
      await page.locator('dialog.secret-dialog[open]').waitFor({ state: 'detached' });

      await page.locator('nav a[href="/console/keys"]').click();
      await page.locator('#keys-title').waitFor();
      await page.locator('button[data-action="new-key"]').click();
      await page.locator('dialog[open] input[name="name"]').waitFor();
      await expectNoAxeViolations(page);
      await page.locator('dialog[open] input[name="name"]').fill(`axe-${locale}`);
      await page.locator('dialog[open] button[type="submit"]').click();
      await page.locator('dialog.secret-dialog[open]').waitFor();
      await expectNoAxeViolations(page);
      await context.close();
    }
    const context = await axeContext(browser, { locale: 'ar' });
    const page = await context.newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${base}/console/clients`);
    await submitLoginForm(page, demo.user);
    await page.locator('#clients-title').waitFor();
    await page.locator('tbody tr').first().waitFor();
    await expectNoAxeViolations(page);
    // The table scrolls in its own box; the page does not scroll sideways.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.locator('button[data-action="new-client"]').click();
    await page.locator('dialog[open] input[name="clientId"]').waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.keyboard.press('Escape');
    // The keys' list too.
    await page.locator('nav a[href="/console/keys"]').click();
    await page.locator('tbody tr').first().waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await context.close();
  }, 150_000);
});
