import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { type ProcessHandle, buildDist, buildWeb, cleanEnv, freePort, startProcess } from '@fed/testing';
import { axeContext, describeWithChromium, expectNoAxeViolations, launchChromium } from '@fed/sign-in/testing';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { type DemoCredentials } from './demo-realm';
import { htmlLangDir, submitLoginForm, tabTo } from './testing/web-app';
import type { PageElement } from './testing/page-globals';

declare const document: {
  documentElement: PageElement;
  activeElement: (PageElement & { closest(selector: string): PageElement | null }) | null;
};

const main = 'dist/apps/platform/src/main.js';
const cli = 'dist/apps/platformctl/src/main.js';
const PASSWORD = 'a long passphrase for the admin panel';
const CHAT_MODEL = 'federation-agent';

interface ShownAgent {
  id: string;
  name: string;
  instructions: string;
  enabled: boolean;
  tenantId: string | null;
  modelConfig: { model?: string; temperature?: number; maxOutputTokens?: number };
}

/**
 * Issue 38, the Marketplace admin panel: in the Marketplace edition the web app is the console only, with the
 * Marketplace agents section; the demo operator manages agents in Chromium, checked by `platformctl agents` and by
 * the Marketplace chat API with a service account's token.
 */
describeWithChromium('console-marketplace-e2e.spec')('the Marketplace admin panel (EDITION=marketplace)', () => {
  let database: TestDatabase;
  let dataDir: string;
  let base: string;
  let platform: ProcessHandle;
  let browser: Browser;
  let demo: DemoCredentials;
  let serviceToken: string;

  async function platformctl(...args: string[]): Promise<string> {
    const handle = startProcess(cli, args, cleanEnv({ DATABASE_URL: database.url, LOG_LEVEL: 'warn' }));
    const code = await handle.exited(60_000);
    if (code !== 0) throw new Error(`platformctl ${args.join(' ')} exited ${code}: ${handle.output()}`);
    return handle.output();
  }

  const shown = async (agentId: string) => JSON.parse(await platformctl('agents', 'show', agentId)) as ShownAgent;

  /** The agent as the admin API answers it (quicker than a platformctl process, the same rows). */
  async function stored(agentId: string, bearer: string) {
    const res = await fetch(`${base}/api/v1/admin/marketplace-agents/${agentId}`, {
      headers: { authorization: `Bearer ${bearer}` },
    });
    return { status: res.status, ...((await res.json()) as Record<string, unknown>) };
  }

  /** A turn of the Marketplace chat API for `agentId`, read to its end (document 2, a service account's token). */
  async function chat(agentId: string, bearer = serviceToken) {
    const res = await fetch(`${base}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json', 'x-agent-id': agentId },
      body: JSON.stringify({ model: CHAT_MODEL, stream: true, messages: [{ role: 'user', content: 'Hello' }] }),
    });
    const text = await res.text();
    return {
      status: res.status,
      code: res.status === 200 ? undefined : (JSON.parse(text) as { error?: { code?: string } }).error?.code,
      done: text.trimEnd().endsWith('data: [DONE]'),
    };
  }

  /**
   * A new context signed in through the login page; `landing` is awaited after it. The access token the app got
   * (its token endpoint's answer) is returned too, to call routes with it directly.
   */
  async function signInToPanel(
    user: { login: string; password: string },
    landing: (page: Page) => Promise<unknown>,
    options: BrowserContextOptions = { locale: 'en' },
    at = '/',
  ): Promise<{ context: BrowserContext; page: Page; token: () => string }> {
    const context = await browser.newContext(options);
    const page = await context.newPage();
    let token: string | undefined;
    page.on('response', (response) => {
      if (response.request().method() !== 'POST' || !/\/token$/.test(new URL(response.url()).pathname)) return;
      void response
        .json()
        .then((body: { access_token?: string }) => {
          if (body.access_token) token = body.access_token;
        })
        .catch(() => undefined);
    });
    await page.goto(`${base}${at}`);
    await submitLoginForm(page, user);
    await landing(page);
    return {
      context,
      page,
      token: () => {
        if (!token) throw new Error('the app got no access token');
        return token;
      },
    };
  }

  const agentsHeading = (page: Page) => page.getByRole('heading', { name: 'Marketplace agents', level: 2 }).waitFor();
  const sectionLinks = (page: Page) =>
    page.getByRole('navigation', { name: 'Console sections' }).getByRole('link').allTextContents();

  beforeAll(async () => {
    buildDist();
    buildWeb();
    database = await createTestDatabase();
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'fed-console-marketplace-'));
    const port = await freePort();
    base = `http://localhost:${port}`;
    platform = startProcess(
      main,
      [],
      cleanEnv({
        DATABASE_URL: database.url,
        PORT: String(port),
        PUBLIC_URL: base,
        DATA_DIR: dataDir,
        EDITION: 'marketplace',
        CHAT_MODEL_NAME: CHAT_MODEL,
        LOG_LEVEL: 'warn',
      }),
    );
    await platform.waitForOutput(/Press Ctrl-C to stop/, 90_000);
    demo = JSON.parse(readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8')) as DemoCredentials;
    const realm = path.join(dataDir, 'console-marketplace.json');
    writeFileSync(
      realm,
      JSON.stringify({
        realm: 'federation',
        users: [
          // An administrator who is not a platform operator, and a plain user.
          { email: 'tara@example.com', username: 'tara', displayName: 'Tara', role: 'admin', password: PASSWORD },
          { email: 'hal@example.com', username: 'hal', displayName: 'Hal', password: PASSWORD },
        ],
      }),
    );
    await platformctl('realm', 'import', realm);
    // An agent whose id the form is refused (409), and one to find by search and the state filter.
    await platformctl('agents', 'create', '--id', 'taken', '--name', 'Taken', '--instructions', 'Hi.');
    await platformctl('agents', 'create', '--id', 'sleepy', '--name', 'Sleepy', '--instructions', 'Zzz.', '--disabled');
    const res = await fetch(`${base}/api/v1/auth/external-service-token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: demo.service.clientId, client_secret: demo.service.clientSecret }),
    });
    serviceToken = ((await res.json()) as { access_token: string }).access_token;
    browser = await launchChromium();
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    platform?.child.kill('SIGKILL');
    await database?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('signs the demo operator in to the console only: the Marketplace agents section, no chat and no SaaS-only section', async () => {
    const { context, page, token } = await signInToPanel(demo.user, agentsHeading);
    expect(await sectionLinks(page)).toEqual(['Marketplace agents']);
    expect(await page.getByRole('link', { name: 'Chat' }).count()).toBe(0);
    expect(await page.getByLabel('Message', { exact: true }).count()).toBe(0);
    // Nor any call of a SaaS-only route (the user information route is 404 here): no error shown.
    await page.getByRole('rowheader', { name: 'taken' }).waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
    await page.getByRole('rowheader', { name: 'taken' }).waitFor();
    // Search and the state filter.
    const filters = page.getByRole('search', { name: 'Filter agents' });
    await filters.getByLabel('State').selectOption('false');
    await filters.getByRole('button', { name: 'Apply' }).click();
    await page.getByRole('rowheader', { name: 'taken' }).waitFor({ state: 'detached' });
    await page.getByRole('rowheader', { name: 'sleepy' }).waitFor();
    await filters.getByLabel('State').selectOption('');
    await filters.getByLabel('Search').fill('TAK');
    await filters.getByRole('button', { name: 'Apply' }).click();
    await page.getByRole('rowheader', { name: 'sleepy' }).waitFor({ state: 'detached' });
    await page.getByText('Page 1 of 1 (1 agents)').waitFor();
    // The operator's browser token is no caller of the chat API: that edition serves service accounts only.
    expect(await chat('taken', token())).toMatchObject({ status: 403, code: 'service_account_required' });
    await context.close();
  }, 90_000);

  it('creates an agent with every field (refusals at their field, 409 for a taken id), edits, disables, enables and deletes it; each checked by platformctl and the chat API', async () => {
    const { context, page, token } = await signInToPanel(demo.user, agentsHeading);
    await page.getByRole('button', { name: 'New agent' }).click();
    const dialog = page.getByRole('dialog', { name: 'New agent' });
    await dialog.getByLabel('Agent ID').fill('taken');
    await dialog.getByLabel('Name').fill('Support bot');
    await dialog.getByLabel('Instructions').fill('Help customers of Example Corp.\nBe brief.');
    await dialog.getByLabel('Model').fill('demo');
    await dialog.getByLabel('Temperature').fill('3');
    await dialog.getByLabel('Max output tokens').fill('300');
    await dialog.getByLabel('Tenant').fill('not-a-tenant');
    const submit = dialog.getByRole('button', { name: 'Create' });
    // Each refusal is shown at its field, which gets the focus; the fields are fixed one by one.
    const refusedAt = async (name: string, text: RegExp) => {
      await submit.click();
      await page.waitForFunction((field) => document.activeElement?.getAttribute('data-field') === field, name);
      const field = dialog.locator(`[data-field="${name}"]`);
      expect(await field.getAttribute('aria-invalid')).toBe('true');
      const describedBy = (await field.getAttribute('aria-describedby')) ?? '';
      const errorId = describedBy.split(' ').find((id) => id.endsWith('-error')) as string;
      expect(await page.locator(`[id="${errorId}"]`).textContent()).toMatch(text);
    };
    await refusedAt('temperature', /a temperature is a number from 0 to 2 \(invalid_parameter\)/);
    await dialog.getByLabel('Temperature').fill('0.2');
    await refusedAt('tenantId', /a tenant is named by its id \(a UUID\) \(invalid_parameter\)/);
    await dialog.getByLabel('Tenant').fill('');
    await refusedAt('agentId', /is taken.*\(conflict\)/);
    await dialog.getByLabel('Agent ID').fill('bad id!');
    await refusedAt('agentId', /an agent id is 1-64 characters.*\(invalid_parameter\)/);
    await dialog.getByLabel('Agent ID').fill('support');
    await submit.click();
    await page.getByRole('status').getByText('Created support.').waitFor({ timeout: 30_000 });
    expect(await shown('support')).toMatchObject({
      id: 'support',
      name: 'Support bot',
      instructions: 'Help customers of Example Corp.\nBe brief.',
      enabled: true,
      tenantId: null,
      modelConfig: { model: 'demo', temperature: 0.2, maxOutputTokens: 300 },
    });
    expect(await chat('support')).toMatchObject({ status: 200, done: true });

    const row = page.getByRole('row', { name: /support/ });
    await row.getByRole('button', { name: 'Edit' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit support' });
    expect(await edit.getByLabel('Temperature').inputValue()).toBe('0.2');
    await edit.getByLabel('Name').fill('Support desk');
    await edit.getByLabel('Temperature').fill('');
    await edit.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').getByText('Saved support.').waitFor({ timeout: 30_000 });
    expect(await stored('support', token())).toMatchObject({
      name: 'Support desk',
      model: 'demo',
      temperature: null,
      maxOutputTokens: 300,
    });

    await row.getByRole('button', { name: 'Disable' }).click();
    const confirm = page.getByRole('dialog', { name: 'Disable' });
    await confirm.getByText('Disable support? New turns are refused').waitFor();
    await confirm.getByRole('button', { name: 'Disable' }).click();
    await row.getByRole('cell', { name: 'Disabled' }).waitFor({ timeout: 30_000 });
    expect(await stored('support', token())).toMatchObject({ enabled: false });
    expect(await chat('support')).toMatchObject({ status: 400, code: 'agent_disabled' });
    await row.getByRole('button', { name: 'Enable' }).click();
    await page.getByRole('dialog', { name: 'Enable' }).getByRole('button', { name: 'Enable' }).click();
    await row.getByRole('cell', { name: 'Enabled', exact: true }).waitFor({ timeout: 30_000 });
    expect(await stored('support', token())).toMatchObject({ enabled: true });

    await row.getByRole('button', { name: 'Delete' }).click();
    const remove = page.getByRole('dialog', { name: 'Delete' });
    await remove.getByRole('button', { name: 'Cancel' }).click();
    expect(await stored('support', token())).toMatchObject({ status: 200, agentId: 'support' });
    await row.getByRole('button', { name: 'Delete' }).click();
    await remove.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('status').getByText('Delete: support.').waitFor({ timeout: 30_000 });
    await page.getByRole('rowheader', { name: 'support' }).waitFor({ state: 'detached' });
    expect(await platformctl('agents', 'list')).not.toMatch(/^support /m);
    expect(await stored('support', token())).toMatchObject({ status: 404 });
    expect(await chat('support')).toMatchObject({ status: 400, code: 'agent_not_found' });
    await context.close();
  }, 180_000);

  it('gives an administrator who is not an operator, and a plain user, no console; their direct call is 403', async () => {
    for (const login of ['tara', 'hal']) {
      const { context, page, token } = await signInToPanel({ login, password: PASSWORD }, (p) =>
        p.getByRole('alert').getByText('Your account may not use the console').waitFor(),
      );
      expect(await page.getByRole('navigation', { name: 'Console sections' }).count()).toBe(0);
      expect(await page.getByRole('heading', { name: 'Marketplace agents' }).count()).toBe(0);
      const response = await fetch(`${base}/api/v1/admin/marketplace-agents`, {
        headers: { authorization: `Bearer ${token()}` },
      });
      expect([login, response.status]).toEqual([login, 403]);
      await context.close();
    }
  }, 90_000);

  it('is usable by keyboard alone: create an agent, and Escape closes a dialog with the focus back on its opener', async () => {
    const { context, page, token } = await signInToPanel(demo.user, agentsHeading);
    await page.getByRole('rowheader', { name: 'taken' }).waitFor();
    await tabTo(page, 'button[data-action="new-agent"]');
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: 'New agent' }).waitFor();
    await tabTo(page, '[data-field="agentId"]');
    await page.keyboard.type('by-keys');
    await tabTo(page, '[data-field="name"]');
    await page.keyboard.type('Keyboard bot');
    await tabTo(page, '[data-field="instructions"]');
    await page.keyboard.type('Answer in one line.');
    await tabTo(page, '[data-field="maxOutputTokens"]');
    await page.keyboard.type('64');
    await tabTo(page, '.agent-form button[type="submit"]');
    await page.keyboard.press('Enter');
    await page.getByRole('status').getByText('Created by-keys.').waitFor({ timeout: 30_000 });
    expect(await stored('by-keys', token())).toMatchObject({
      name: 'Keyboard bot',
      instructions: 'Answer in one line.',
      enabled: true,
      model: null,
      maxOutputTokens: 64,
    });
    await tabTo(page, 'tr[data-agent-id="by-keys"] button[data-action="delete"]');
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: 'Delete' }).waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog', { name: 'Delete' }).waitFor({ state: 'hidden' });
    expect(
      await page.evaluate(() => document.activeElement?.closest('tr')?.getAttribute('data-agent-id') ?? null),
    ).toBe('by-keys');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-action') ?? null)).toBe('delete');
    expect(await stored('by-keys', token())).toMatchObject({ status: 200, agentId: 'by-keys' });
    await context.close();
  }, 120_000);

  it('has no WCAG 2.1 AA violation (axe) in Japanese, English and Arabic with the form open, and its list fits a phone', async () => {
    for (const [locale, width, height, title] of [
      ['ja', 1280, 800, '新しいエージェント'],
      ['en', 1280, 800, 'New agent'],
      ['ar', 1280, 800, 'وكيل جديد'],
      ['ar', 390, 844, undefined],
    ] as const) {
      const context = await axeContext(browser, { locale });
      const page = await context.newPage();
      await page.setViewportSize({ width, height });
      await page.goto(`${base}/console/marketplace-agents`);
      await submitLoginForm(page, demo.user);
      await page.locator('#marketplace-agents-title').waitFor();
      await page.locator('tr[data-agent-id="taken"]').waitFor();
      if (locale === 'ar') expect(await htmlLangDir(page)).toEqual(['ar', 'rtl']);
      if (title) {
        await page.locator('button[data-action="new-agent"]').click();
        await page.getByRole('dialog', { name: title }).waitFor();
      }
      await expectNoAxeViolations(page);
      if (width < 400) {
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      }
      await context.close();
    }
  }, 120_000);

  it('shows no Marketplace agents section to the same operator when the page says it is the SaaS edition', async () => {
    // The page's edition decides: the same token (platform:manage) in a page served as SaaS gets the SaaS sections.
    const context = await browser.newContext({ locale: 'en' });
    // Every page of the app (the callback's too, which the provider's redirect opens) reads its config as SaaS.
    await context.addInitScript(`{
      const own = Object.getOwnPropertyDescriptor(HTMLMetaElement.prototype, 'content');
      Object.defineProperty(HTMLMetaElement.prototype, 'content', {
        configurable: true,
        set: own.set,
        get() {
          const value = own.get.call(this);
          return this.name === 'fed-web-config' ? value.replace('"edition":"marketplace"', '"edition":"saas"') : value;
        },
      });
    }`);
    const page = await context.newPage();
    await page.goto(`${base}/console/marketplace-agents`);
    await submitLoginForm(page, demo.user);
    await page.getByRole('navigation', { name: 'Console sections' }).waitFor();
    const links = await sectionLinks(page);
    expect(links).toContain('Clients');
    expect(links).not.toContain('Marketplace agents');
    // And the SaaS app's way back to the chat.
    expect(await page.getByRole('link', { name: 'Chat' }).count()).toBe(1);
    await context.close();
  }, 60_000);
});
