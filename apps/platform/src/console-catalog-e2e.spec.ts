import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { McpAppsServer, type ProcessHandle, buildDist, buildWeb, cleanEnv, freePort, startProcess } from '@fed/testing';
import { axeContext, describeWithChromium, expectNoAxeViolations, launchChromium } from '@fed/sign-in/testing';
import { type DemoCredentials } from './demo-realm';
import { htmlLangDir, signInToWebApp, submitLoginForm, tabTo } from './testing/web-app';

const main = 'dist/apps/platform/src/main.js';
const cli = 'dist/apps/platformctl/src/main.js';
const PASSWORD = 'a long passphrase for the console';

type Json = Record<string, unknown>;

/** The catalog's three kinds as the console and the admin API name them (docs/admin.md, "Catalog and library over HTTP"). */
const KINDS = [
  { kind: 'personas', id: 'personaKey', title: 'Personas', newLabel: 'New persona', name: 'E2E persona' },
  {
    kind: 'playbooks',
    id: 'playbookId',
    title: 'Playbooks',
    newLabel: 'New playbook',
    name: 'E2E playbook',
    flag: { field: 'active', off: 'Deactivate', on: 'Activate', offDone: 'Deactivated', onDone: 'Activated' },
  },
  {
    kind: 'skills',
    id: 'skillId',
    title: 'Skills',
    newLabel: 'New skill',
    name: 'E2E skill',
    flag: { field: 'available', off: 'Disable', on: 'Enable', offDone: 'Disabled', onDone: 'Enabled' },
  },
] as const;

/** The bearer token of the page's latest call to the API (the web app holds it in memory only). */
function captureToken(page: Page): () => string {
  let token: string | undefined;
  page.on('request', (request) => {
    const header = request.headers()['authorization'];
    if (header?.startsWith('Bearer ') && new URL(request.url()).pathname.startsWith('/api/v1/')) token = header;
  });
  return () => {
    if (token === undefined) throw new Error('the page sent no bearer token');
    return token;
  };
}

/** An attribute of the focused element. */
function focused(page: Page, attribute: string): Promise<string | null> {
  return page.evaluate(
    (name) =>
      (
        globalThis as unknown as {
          document: { activeElement: { getAttribute(name: string): string | null } | null };
        }
      ).document.activeElement?.getAttribute(name) ?? null,
    attribute,
  );
}

/** Issue 38, "The screens": the demo administrator of `npm start` manages tool servers and the catalog in the console. */
describeWithChromium('console-catalog-e2e.spec')('the console: tool servers, personas, playbooks and skills', () => {
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

  async function api(token: string, route: string): Promise<{ status: number; body: Json }> {
    const response = await fetch(`${base}${route}`, { headers: { authorization: token } });
    return { status: response.status, body: (await response.json()) as Json };
  }

  /** The record of the kind named `name`, as the admin API lists it. */
  async function adminRecord(token: string, kind: string, name: string): Promise<Json | undefined> {
    const { body } = await api(token, `/api/v1/admin/${kind}?limit=100`);
    return (body[kind] as Json[]).find((record) => record['name'] === name);
  }

  /** Whether the chat's catalog (document 2's lists, chat:exec) offers the record `id` to the token's user. */
  async function offeredToUsers(token: string, kind: string, idField: string, id: string): Promise<boolean> {
    const { status, body } = await api(token, `/api/v1/${kind}?limit=100`);
    expect(status).toBe(200);
    return (body[kind] as Json[]).some((record) => record[idField] === id);
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

  it('creates, edits, switches off and on, and deletes a persona, a playbook and a skill, each checked through the API and the chat’s catalog', async () => {
    const { context, page } = await signInToWebApp(browser, base, demo.user, { locale: 'en' });
    const token = captureToken(page);
    await page.goto(`${base}/console/personas`);
    for (const entry of KINDS) {
      await page.locator(`a[href="/console/${entry.kind}"]`).click();
      await page.getByRole('heading', { name: entry.title, level: 2 }).waitFor();
      await page.locator('.table-scroll tbody tr').first().waitFor();

      // Create, after a refusal shown at the field it names with the focus moved there.
      await page.getByRole('button', { name: entry.newLabel }).click();
      const dialog = page.getByRole('dialog', { name: entry.newLabel });
      if (entry.kind === 'personas') await dialog.getByLabel('Key', { exact: true }).fill('concise-analyst');
      await dialog.getByLabel('Name', { exact: true }).fill(entry.kind === 'personas' ? entry.name : '   ');
      await dialog.getByLabel('Description', { exact: true }).fill(`Made in the console: ${entry.kind}`);
      await dialog.getByLabel('Instructions', { exact: true }).fill('Answer in one sentence.');
      await dialog.getByRole('button', { name: 'Create' }).click();
      const refused = entry.kind === 'personas' ? 'personaKey' : 'name';
      await dialog
        .locator('.field-error')
        .getByText(entry.kind === 'personas' ? /exists already \(conflict\)$/ : /^a name is .*\(invalid_parameter\)$/)
        .waitFor({ timeout: 30_000 });
      expect(await focused(page, 'data-field')).toBe(refused);
      expect(await focused(page, 'aria-invalid')).toBe('true');
      if (entry.kind === 'personas') await dialog.getByLabel('Key', { exact: true }).fill('e2e-persona');
      else await dialog.getByLabel('Name', { exact: true }).fill(entry.name);
      await dialog.getByRole('button', { name: 'Create' }).click();
      await page.getByRole('status').getByText(`Created ${entry.name}.`).waitFor({ timeout: 30_000 });
      await dialog.waitFor({ state: 'hidden' });
      const created = await adminRecord(token(), entry.kind, entry.name);
      expect(created).toMatchObject({
        description: `Made in the console: ${entry.kind}`,
        instructions: 'Answer in one sentence.',
        ...(entry.kind === 'personas' ? { personaKey: 'e2e-persona' } : { [entry.flag.field]: true }),
      });
      const id = String(created![entry.id]);
      expect(await offeredToUsers(token(), entry.kind, entry.id, id)).toBe(true);

      // Search: nothing, then the new record alone.
      const search = page.getByRole('searchbox', { name: 'Search' });
      await search.fill('no such thing anywhere');
      await page.getByText('Nothing matches the search.').waitFor();
      await search.fill(entry.name.toUpperCase());
      const row = page.getByRole('row', { name: new RegExp(entry.name) });
      await row.waitFor();
      expect(await page.locator('.table-scroll tbody tr').count()).toBe(1);
      await search.fill('');

      // Edit.
      await row.getByRole('button', { name: 'Edit' }).click();
      const editing = page.getByRole('dialog', { name: `Edit ${entry.name}` });
      expect(await editing.getByLabel('Instructions', { exact: true }).inputValue()).toBe('Answer in one sentence.');
      if (entry.kind === 'skills') {
        // A change refused is shown at its field too.
        await editing.getByLabel('Name', { exact: true }).fill(' ');
        await editing.getByRole('button', { name: 'Save' }).click();
        await editing
          .locator('.field-error')
          .getByText(/^a name is /)
          .waitFor({ timeout: 30_000 });
        expect(await focused(page, 'data-field')).toBe('name');
        await editing.getByLabel('Name', { exact: true }).fill(entry.name);
      }
      await editing.getByLabel('Description', { exact: true }).fill('Edited in the console');
      await editing.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('status').getByText(`Saved ${entry.name}.`).waitFor({ timeout: 30_000 });
      expect(await adminRecord(token(), entry.kind, entry.name)).toMatchObject({
        description: 'Edited in the console',
      });

      // Off and on again: users' catalog omits it while it is off.
      if (entry.kind !== 'personas') {
        await row.getByRole('button', { name: entry.flag.off }).click();
        await page.getByRole('status').getByText(`${entry.flag.offDone} ${entry.name}.`).waitFor({ timeout: 30_000 });
        expect(await adminRecord(token(), entry.kind, entry.name)).toMatchObject({ [entry.flag.field]: false });
        expect(await offeredToUsers(token(), entry.kind, entry.id, id)).toBe(false);
        await row.getByRole('button', { name: entry.flag.on }).click();
        await page.getByRole('status').getByText(`${entry.flag.onDone} ${entry.name}.`).waitFor({ timeout: 30_000 });
        expect(await adminRecord(token(), entry.kind, entry.name)).toMatchObject({ [entry.flag.field]: true });
      }

      // Delete: Cancel keeps it, then it goes; the focus lands on the screen's heading.
      const route = `/api/v1/admin/${entry.kind}/${encodeURIComponent(id)}`;
      await row.getByRole('button', { name: 'Delete' }).click();
      const confirm = page.getByRole('dialog', { name: 'Delete' });
      await confirm.getByText(`Delete ${entry.name}? This cannot be undone.`).waitFor();
      await confirm.getByRole('button', { name: 'Cancel' }).click();
      await confirm.waitFor({ state: 'hidden' });
      expect((await api(token(), route)).status).toBe(200);
      await row.getByRole('button', { name: 'Delete' }).click();
      await confirm.getByRole('button', { name: 'Delete' }).click();
      await page.getByRole('status').getByText(`Deleted ${entry.name}.`).waitFor({ timeout: 30_000 });
      await row.waitFor({ state: 'detached' });
      expect((await api(token(), route)).status).toBe(404);
      await page.waitForFunction(
        (title) =>
          (globalThis as unknown as { document: { activeElement: { id: string } | null } }).document.activeElement
            ?.id === title,
        `${entry.kind}-title`,
      );
    }
    await context.close();
  }, 120_000);

  it('shows a tenant administrator who is not an operator no tool servers, personas, playbooks or skills section, and their direct calls are 403', async () => {
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
    const sections = await page
      .getByRole('navigation', { name: 'Console sections' })
      .getByRole('link')
      .allTextContents();
    for (const title of ['Tool servers', 'Personas', 'Playbooks', 'Skills']) expect(sections).not.toContain(title);
    expect(token).toBeDefined();
    for (const route of ['tool-servers', 'personas', 'playbooks', 'skills']) {
      const response = await fetch(`${base}/api/v1/admin/${route}`, { headers: { authorization: token! } });
      expect({ route, status: response.status }).toEqual({ route, status: 403 });
    }
    const created = await fetch(`${base}/api/v1/admin/playbooks`, {
      method: 'POST',
      headers: { authorization: token!, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Not yours', instructions: 'No.' }),
    });
    expect(created.status).toBe(403);
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

  it('creates a skill by keyboard alone (the dialog opens on its first field, focus returns to its opener), and Escape closes the edit dialog', async () => {
    const { context, page } = await signInToWebApp(browser, base, demo.user, { locale: 'en' });
    const token = captureToken(page);
    await page.goto(`${base}/console/skills`);
    await page.getByRole('heading', { name: 'Skills', level: 2 }).waitFor();
    await page.locator('.table-scroll tbody tr').first().waitFor();
    await tabTo(page, 'button[data-action="new"]');
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: 'New skill' }).waitFor();
    expect(await focused(page, 'data-field')).toBe('name');
    await page.keyboard.type('Keyboard skill');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Made by keyboard');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Answer by keyboard.');
    await page.keyboard.press('Tab');
    // The availability checkbox, checked: Space turns the new skill off.
    expect(await focused(page, 'data-field')).toBe('enabled');
    await page.keyboard.press('Space');
    await tabTo(page, 'dialog[open] button[type="submit"]');
    await page.keyboard.press('Enter');
    await page.getByRole('status').getByText('Created Keyboard skill.').waitFor({ timeout: 30_000 });
    await page.getByRole('dialog', { name: 'New skill' }).waitFor({ state: 'hidden' });
    expect(await focused(page, 'data-action')).toBe('new');
    const skill = await adminRecord(token(), 'skills', 'Keyboard skill');
    expect(skill).toMatchObject({
      description: 'Made by keyboard',
      instructions: 'Answer by keyboard.',
      available: false,
    });

    const edit = `tr[data-id="${String(skill!['skillId'])}"] button[data-action="edit"]`;
    await page.locator(edit).waitFor();
    await tabTo(page, edit);
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: 'Edit Keyboard skill' }).waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog', { name: 'Edit Keyboard skill' }).waitFor({ state: 'hidden' });
    expect(await focused(page, 'data-action')).toBe('edit');
    await context.close();
  }, 60_000);

  it('has no WCAG 2.1 AA violation (axe) in Japanese, English and Arabic, with the persona form open, and fits a phone with a catalog list', async () => {
    // The four views at once, each in its own context: they share nothing but the platform.
    const views = [
      ['ja', 1280, 800],
      ['en', 1280, 800],
      ['ar', 1280, 800],
      ['ar', 390, 844],
    ] as const;
    await Promise.all(views.map(([locale, width, height]) => checkView(locale, width, height)));

    async function checkView(locale: string, width: number, height: number): Promise<void> {
      const context = await axeContext(browser, { locale });
      try {
        await checkPage(await context.newPage(), locale, width, height);
      } finally {
        await context.close();
      }
    }

    async function checkPage(page: Page, locale: string, width: number, height: number): Promise<void> {
      await page.setViewportSize({ width, height });
      await page.goto(`${base}/console/tool-servers`);
      await submitLoginForm(page, demo.user);
      await page.locator('#tool-servers-title').waitFor();
      if (locale === 'ar') expect(await htmlLangDir(page)).toEqual(['ar', 'rtl']);
      await expectNoAxeViolations(page);
      const scrollWidth = () =>
        page.evaluate(
          () =>
            (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document
              .documentElement.scrollWidth,
        );
      if (width < 400) {
        expect(await scrollWidth()).toBeLessThanOrEqual(width);
        // A catalog list (the seeded playbooks, with their descriptions) scrolls in its own box, never the page.
        await page.locator('a[href="/console/playbooks"]').click();
        await page.locator('#playbooks-title').waitFor();
        await page.locator('.table-scroll tbody tr').first().waitFor();
        await expectNoAxeViolations(page);
        expect(await scrollWidth()).toBeLessThanOrEqual(width);
      } else {
        // The create form open, with a refusal shown at its field.
        await page.locator('a[href="/console/personas"]').click();
        await page.locator('#personas-title').waitFor();
        await page.locator('button[data-action="new"]').click();
        await page.locator('dialog[open] button[type="submit"]').click();
        await page.locator('dialog[open] .field-error').waitFor({ timeout: 30_000 });
        await expectNoAxeViolations(page);
        await page.keyboard.press('Escape');
        await page.locator('dialog[open]').waitFor({ state: 'detached' });
      }
    }
  }, 120_000);
});
