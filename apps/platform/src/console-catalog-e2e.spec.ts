import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Browser } from 'playwright-core';
import { McpAppsServer, type ProcessHandle, buildDist, buildWeb, cleanEnv, freePort, startProcess } from '@fed/testing';
import { axeContext, describeWithChromium, expectNoAxeViolations, launchChromium } from '@fed/sign-in/testing';
import { type DemoCredentials } from './demo-realm';
import { htmlLangDir, signInToWebApp, submitLoginForm, tabTo } from './testing/web-app';

const main = 'dist/apps/platform/src/main.js';
const cli = 'dist/apps/platformctl/src/main.js';
const PASSWORD = 'a long passphrase for the console';

/** Issue 38, "The screens: tool servers": the demo administrator of `npm start` manages them in the console. */
describeWithChromium('console-catalog-e2e.spec')('the console: tool servers', () => {
  let dataDir: string;
  let base: string;
  let platform: ProcessHandle;
  let browser: Browser;
  let demo: DemoCredentials;
  let weather: McpAppsServer;

  async function platformctl(args: string[]): Promise<string> {
    const handle = startProcess(cli, args, cleanEnv({ DATA_DIR: dataDir }));
    const code = await handle.exited(60_000);
    if (code !== 0) throw new Error(`platformctl ${args.join(' ')}: ${code}\n${handle.output()}`);
    return handle.output();
  }

  beforeAll(async () => {
    buildDist();
    buildWeb();
    weather = await McpAppsServer.start();
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'fed-console-catalog-'));
    const port = await freePort();
    base = `http://localhost:${port}`;
    platform = startProcess(
      main,
      [],
      // The MCP server is on loopback: allowed as for tool servers of one's own network.
      cleanEnv({ PORT: String(port), DATA_DIR: dataDir, TOOLSERVER_ALLOW_PRIVATE_ADDRESSES: 'true' }),
    );
    await platform.waitForOutput(/Press Ctrl-C to stop/, 60_000);
    demo = JSON.parse(readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8')) as DemoCredentials;
    const realm = path.join(dataDir, 'console-catalog.json');
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
    await weather?.close().catch(() => undefined);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('adds a tool server, shows its offered tools, allows and disallows them, refreshes it, and shows a failing refresh once the server stops', async () => {
    const { context, page } = await signInToWebApp(browser, base, demo.user, { locale: 'en' });
    await page.goto(`${base}/console/tool-servers`);
    await page.getByRole('heading', { name: 'Tool servers', level: 2 }).waitFor();
    await page.getByText('No tool server is approved.').waitFor();

    const add = page.getByRole('region', { name: 'Add a tool server' });
    await add.getByLabel('Name').fill('weather');
    await add.getByLabel('URL').fill(weather.url);
    // A tool the server does not offer: the API's refusal is shown.
    await add.getByLabel('Allowed tools').fill('nope');
    await add.getByRole('button', { name: 'Add' }).click();
    await add.getByRole('alert').getByText('(invalid_parameter)').waitFor({ timeout: 30_000 });
    await add.getByLabel('Allowed tools').fill('echo');
    await add.getByRole('button', { name: 'Add' }).click();
    await page.getByRole('status').getByText('Added weather.').waitFor({ timeout: 30_000 });
    expect(await platformctl(['toolservers', 'list'])).toMatch(/^weather {2}enabled .* allowed=echo /m);

    const tools = page.getByRole('region', { name: 'Tools of weather' });
    await tools.getByRole('checkbox', { name: 'echo' }).waitFor();
    expect(await tools.getByRole('checkbox', { name: 'echo' }).isChecked()).toBe(true);
    expect(await tools.getByRole('checkbox', { name: 'show_weather' }).isChecked()).toBe(false);
    await tools.getByRole('checkbox', { name: 'show_weather' }).check();
    await tools.getByRole('checkbox', { name: 'echo' }).uncheck();
    await tools.getByRole('button', { name: 'Save allowed tools' }).click();
    await page.getByRole('status').getByText('Saved the allowed tools of weather.').waitFor({ timeout: 30_000 });
    expect(await platformctl(['toolservers', 'list'])).toMatch(/^weather .* allowed=show_weather /m);

    const row = page.getByRole('row', { name: /weather/ });
    await row.getByRole('button', { name: 'Refresh' }).click();
    await page
      .getByRole('status')
      .getByText(/^Refreshed weather: \d+ tools offered\.$/)
      .waitFor({ timeout: 30_000 });
    await row.getByRole('cell', { name: 'Ready' }).waitFor();

    await weather.close();
    await row.getByRole('button', { name: 'Refresh' }).click();
    await page
      .getByRole('alert')
      .getByText(/^Could not refresh weather: .*\(upstream_api_error\)$/)
      .waitFor({
        timeout: 60_000,
      });
    await row.getByRole('cell', { name: 'Failing' }).waitFor({ timeout: 30_000 });

    await row.getByRole('button', { name: 'Remove' }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove' });
    await dialog.getByText('Remove weather?').waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await platformctl(['toolservers', 'list'])).toMatch(/^weather /m);
    await row.getByRole('button', { name: 'Remove' }).click();
    await dialog.getByRole('button', { name: 'Remove' }).click();
    await page.getByText('No tool server is approved.').waitFor();
    expect(await platformctl(['toolservers', 'list'])).toContain('no tool servers');
    await context.close();
  }, 180_000);

  it('shows a tenant administrator who is not an operator no tool servers section, and its direct call is 403', async () => {
    const { context, page } = await signInToWebApp(
      browser,
      base,
      { login: 'tara', password: PASSWORD },
      { locale: 'en' },
    );
    let token: string | undefined;
    page.on('request', (request) => {
      const header = request.headers()['authorization'];
      if (header?.startsWith('Bearer ') && new URL(request.url()).pathname.startsWith('/api/v1/admin/')) token = header;
    });
    await page.getByRole('link', { name: 'Console' }).click();
    await page.getByRole('heading', { name: 'Users', level: 2 }).waitFor();
    expect(
      await page.getByRole('navigation', { name: 'Console sections' }).getByRole('link').allTextContents(),
    ).not.toContain('Tool servers');
    expect(token).toBeDefined();
    const response = await fetch(`${base}/api/v1/admin/tool-servers`, { headers: { authorization: token! } });
    expect(response.status).toBe(403);
    await context.close();
  }, 60_000);

  it('offers a plain user no console: no link, and /console/tool-servers says why', async () => {
    const { context, page } = await signInToWebApp(
      browser,
      base,
      { login: 'hal', password: PASSWORD },
      { locale: 'en' },
    );
    expect(await page.getByRole('link', { name: 'Console' }).count()).toBe(0);
    await page.goto(`${base}/console/tool-servers`);
    await page.getByRole('alert').getByText('Your account may not use the console').waitFor();
    await context.close();
  }, 60_000);

  it('is usable by keyboard alone: a server’s tools, a checkbox, saving, and the remove dialog (Escape cancels, focus returns)', async () => {
    const other = await McpAppsServer.start();
    try {
      const handle = startProcess(
        cli,
        ['toolservers', 'add', 'keys', '--url', other.url, '--allow', 'echo'],
        cleanEnv({ DATA_DIR: dataDir, TOOLSERVER_ALLOW_PRIVATE_ADDRESSES: 'true' }),
      );
      expect(await handle.exited(60_000)).toBe(0);
      const { context, page } = await signInToWebApp(browser, base, demo.user, { locale: 'en' });
      await page.goto(`${base}/console/tool-servers`);
      await page.getByRole('rowheader', { name: 'keys' }).waitFor();
      await tabTo(page, 'button[data-action="tools"]');
      await page.keyboard.press('Enter');
      await page.getByRole('region', { name: 'Tools of keys' }).waitFor();
      await tabTo(page, 'input[type="checkbox"][value="show_weather"]');
      await page.keyboard.press('Space');
      await tabTo(page, 'form.console-form button[type="submit"]');
      await page.keyboard.press('Enter');
      await page.getByRole('status').getByText('Saved the allowed tools of keys.').waitFor({ timeout: 30_000 });
      expect(await platformctl(['toolservers', 'list'])).toMatch(
        /^keys .* allowed=(echo,show_weather|show_weather,echo) /m,
      );
      await tabTo(page, 'button[data-action="remove"]', { backwards: true });
      await page.keyboard.press('Enter');
      await page.getByRole('dialog').waitFor();
      await page.keyboard.press('Escape');
      await page.getByRole('dialog').waitFor({ state: 'hidden' });
      expect(
        await page.evaluate(
          () =>
            (globalThis as unknown as { document: { activeElement: { textContent: string } | null } }).document
              .activeElement?.textContent,
        ),
      ).toBe('Remove');
      expect(await platformctl(['toolservers', 'list'])).toMatch(/^keys /m);
      await context.close();
    } finally {
      await other.close();
    }
  }, 120_000);

  it('has no WCAG 2.1 AA violation (axe) in Japanese, English and Arabic, and fits a phone', async () => {
    for (const [locale, width, height] of [
      ['ja', 1280, 800],
      ['en', 1280, 800],
      ['ar', 1280, 800],
      ['ar', 390, 844],
    ] as const) {
      const context = await axeContext(browser, { locale });
      const page = await context.newPage();
      await page.setViewportSize({ width, height });
      await page.goto(`${base}/console/tool-servers`);
      await submitLoginForm(page, demo.user);
      await page.locator('#tool-servers-title').waitFor();
      if (locale === 'ar') expect(await htmlLangDir(page)).toEqual(['ar', 'rtl']);
      await expectNoAxeViolations(page);
      if (width < 400) {
        const scrollWidth = await page.evaluate(
          () =>
            (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document
              .documentElement.scrollWidth,
        );
        expect(scrollWidth).toBeLessThanOrEqual(width);
      }
      await context.close();
    }
  }, 120_000);
});
