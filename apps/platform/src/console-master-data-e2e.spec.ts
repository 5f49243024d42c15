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

const main = 'dist/apps/platform/src/main.js';
const cli = 'dist/apps/platformctl/src/main.js';
const PASSWORD = 'a long passphrase for the console';

interface ListedEntry {
  code: string;
  label: string;
  platformWide: boolean;
}

interface ListedItem {
  itemId: string;
  filepath: string;
  title: string;
  kind: string;
  mimeType: string;
  bytes: number;
  content?: string;
}

/** The bearer token the page's admin calls carry (the last one seen). */
function recordAdminToken(page: Page): () => string {
  let token: string | undefined;
  page.on('request', (request) => {
    const header = request.headers()['authorization'];
    if (header?.startsWith('Bearer ') && new URL(request.url()).pathname.startsWith('/api/v1/admin/')) token = header;
  });
  return () => {
    if (!token) throw new Error('no admin call with a bearer token seen yet');
    return token;
  };
}

/**
 * Issue 38, "The screens: master data and library": the demo administrator of `npm start` manages the tenant's
 * organizations and job types and the platform's library in the console; a tenant administrator sees only the
 * former, a plain user neither.
 */
describeWithChromium('console-master-data-e2e.spec')('the console: master data and library', () => {
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

  async function api<T>(token: string, route: string): Promise<{ status: number; body: T }> {
    const response = await fetch(`${base}${route}`, { headers: { authorization: token } });
    return { status: response.status, body: (await response.json()) as T };
  }

  beforeAll(async () => {
    buildDist();
    buildWeb();
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'fed-console-master-data-'));
    const port = await freePort();
    base = `http://localhost:${port}`;
    platform = startProcess(main, [], cleanEnv({ PORT: String(port), DATA_DIR: dataDir }));
    await platform.waitForOutput(/Press Ctrl-C to stop/, 60_000);
    demo = JSON.parse(readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8')) as DemoCredentials;
    const realm = path.join(dataDir, 'console-master-data.json');
    writeFileSync(
      realm,
      JSON.stringify({
        realm: 'federation',
        tenants: [{ name: 'acme', type: 'saas', endpoint: 'https://acme.example.com' }],
        users: [
          // The tenant's administrator, not a platform operator.
          { email: 'tara@example.com', username: 'tara', displayName: 'Tara', role: 'admin', password: PASSWORD },
          // Hal carries the job type `reviewer`, which therefore cannot be deleted (409).
          {
            email: 'hal@example.com',
            username: 'hal',
            displayName: 'Hal',
            password: PASSWORD,
            job: { id: 'reviewer', label: 'Reviewer' },
          },
        ],
      }),
    );
    await platformctl(['realm', 'import', realm]);
    await Promise.all([
      // A platform-wide entry (every tenant sees it, none changes it), another tenant's own (no one else sees
      // it), and one of the demo's tenant for the dialogs of the keyboard and axe tests.
      platformctl(['organizations', 'create', 'shared-org', 'Shared organization']),
      platformctl(['organizations', 'create', 'acme-only', 'Acme only', '--tenant', 'acme']),
      platformctl(['job-types', 'create', 'reviewer', 'Reviewer', '--tenant', 'default']),
    ]);
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    platform?.child.kill('SIGKILL');
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('creates, renames and deletes an organization and a job type of the tenant; a taken code is refused at its field and a code in use in the dialog; the platform-wide entry is read-only', async () => {
    const { context, page } = await signInToWebApp(browser, base, demo.user, { locale: 'en' });
    const token = recordAdminToken(page);
    await page.goto(`${base}/console/master-data`);
    await page.getByRole('heading', { name: 'Master data', level: 2 }).waitFor();
    const organizations = page.locator('[data-kind="organizations"]');
    const jobTypes = page.locator('[data-kind="jobTypes"]');

    const shared = organizations.locator('tr[data-code="shared-org"]');
    await shared.getByRole('cell', { name: 'Platform-wide', exact: true }).waitFor();
    await shared.getByText('Read only').waitFor();
    expect(await shared.getByRole('button').count()).toBe(0);
    expect(await organizations.locator('tr[data-code="acme-only"]').count()).toBe(0);

    const addOrganization = page.getByRole('form', { name: 'Add an organization' });
    await addOrganization.getByLabel('Code').fill('sales');
    await addOrganization.getByLabel('Name').fill('Sales');
    await addOrganization.getByRole('button', { name: 'Add' }).click();
    await page.getByRole('status').getByText('Added sales.').waitFor({ timeout: 30_000 });
    const sales = organizations.locator('tr[data-code="sales"]');
    await sales.getByRole('cell', { name: 'This tenant' }).waitFor();
    expect(await platformctl(['organizations', 'list', '--tenant', 'default'])).toMatch(/^sales {2}"Sales"$/m);

    // A code the platform already has: 409, shown at the code field, which keeps what was typed.
    await addOrganization.getByLabel('Code').fill('shared-org');
    await addOrganization.getByLabel('Name').fill('Mine');
    await addOrganization.getByRole('button', { name: 'Add' }).click();
    await addOrganization
      .getByRole('alert')
      .getByText('The code shared-org is already taken (in this tenant or platform-wide).')
      .waitFor({ timeout: 30_000 });
    const code = addOrganization.getByLabel('Code');
    expect(await code.getAttribute('aria-invalid')).toBe('true');
    expect(await code.inputValue()).toBe('shared-org');
    // The refused field has the focus, so its refusal is read with it.
    expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('code');
    const errorId = (await addOrganization.getByRole('alert').getAttribute('id'))!;
    expect(((await code.getAttribute('aria-describedby')) ?? '').split(' ')).toContain(errorId);

    await sales.getByRole('button', { name: 'Edit name' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit the name of sales' });
    await edit.getByLabel('Name').fill('Sales and marketing');
    await edit.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').getByText('Renamed sales.').waitFor({ timeout: 30_000 });
    await sales.getByRole('cell', { name: 'Sales and marketing' }).waitFor();
    expect(await platformctl(['organizations', 'list', '--tenant', 'default'])).toMatch(
      /^sales {2}"Sales and marketing"$/m,
    );

    await sales.getByRole('button', { name: 'Delete' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete' });
    await confirm.getByText('Delete Sales and marketing (sales)?', { exact: false }).waitFor();
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'hidden' });
    await sales.getByRole('button', { name: 'Delete' }).click();
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('status').getByText('Deleted sales.').waitFor({ timeout: 30_000 });
    await sales.waitFor({ state: 'detached' });
    const left = await platformctl(['organizations', 'list', '--tenant', 'default']);
    expect(left).not.toMatch(/^sales /m);
    expect(left).toMatch(/^shared-org {2}"Shared organization" {2}\(platform-wide\)$/m);

    // Job types: the same, checked through the API with the page's own token.
    const addJobType = page.getByRole('form', { name: 'Add a job type' });
    await addJobType.getByLabel('Code').fill('engineer');
    await addJobType.getByLabel('Name').fill('Engineer');
    await addJobType.getByRole('button', { name: 'Add' }).click();
    await page.getByRole('status').getByText('Added engineer.').waitFor({ timeout: 30_000 });
    const jobTypesOf = async () =>
      (await api<{ jobTypes: ListedEntry[] }>(token(), '/api/v1/admin/job-types')).body.jobTypes;
    expect(await jobTypesOf()).toContainEqual(
      expect.objectContaining({ code: 'engineer', label: 'Engineer', platformWide: false }),
    );
    const engineer = jobTypes.locator('tr[data-code="engineer"]');
    await engineer.getByRole('button', { name: 'Edit name' }).click();
    const editJob = page.getByRole('dialog', { name: 'Edit the name of engineer' });
    await editJob.getByLabel('Name').fill('Engineering');
    await editJob.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').getByText('Renamed engineer.').waitFor({ timeout: 30_000 });
    expect(await jobTypesOf()).toContainEqual(expect.objectContaining({ code: 'engineer', label: 'Engineering' }));
    await engineer.getByRole('button', { name: 'Delete' }).click();
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('status').getByText('Deleted engineer.').waitFor({ timeout: 30_000 });
    expect((await jobTypesOf()).map((entry) => entry.code)).not.toContain('engineer');

    // A code a user still carries: the API's 409 is shown in the dialog, which stays open; nothing is deleted.
    await jobTypes.locator('tr[data-code="reviewer"]').getByRole('button', { name: 'Delete' }).click();
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await confirm
      .getByRole('alert')
      .getByText(/users still belong to job type reviewer.*\(conflict\)$/)
      .waitFor({
        timeout: 30_000,
      });
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'hidden' });
    expect((await jobTypesOf()).map((entry) => entry.code)).toContain('reviewer');
    await context.close();
  }, 120_000);

  it('adds a library file (uploaded) and a prompt template, refuses a taken path at its field, and deletes both behind a confirmation', async () => {
    const { context, page } = await signInToWebApp(browser, base, demo.user, { locale: 'en' });
    const token = recordAdminToken(page);
    await page.goto(`${base}/console/library`);
    await page.getByRole('heading', { name: 'Library', level: 2 }).waitFor();
    // The demo's seeded items.
    await page.getByRole('rowheader', { name: 'guides/house-style.md' }).waitFor();
    await page.getByRole('rowheader', { name: 'templates/summarize.md' }).waitFor();
    const items = async () =>
      (await api<{ items: ListedItem[] }>(token(), '/api/v1/admin/library?limit=100')).body.items;

    const notes = 'Meeting notes\nof the console test.\n';
    const addFile = page.getByRole('form', { name: 'Add a file' });
    await addFile.getByLabel('File', { exact: true }).setInputFiles({
      name: 'whatever.bin',
      mimeType: 'application/octet-stream',
      buffer: Buffer.from(notes),
    });
    await addFile.getByLabel('Path').fill('docs/notes.txt');
    await addFile.getByLabel('Title').fill('Notes');
    await addFile.getByRole('button', { name: 'Add' }).click();
    await page.getByRole('status').getByText('Added docs/notes.txt.').waitFor({ timeout: 30_000 });
    await page.getByRole('rowheader', { name: 'docs/notes.txt' }).waitFor();
    // The type follows from the filepath, not from the file's own name or type.
    expect(await items()).toContainEqual(
      expect.objectContaining({
        filepath: 'docs/notes.txt',
        title: 'Notes',
        kind: 'file',
        mimeType: 'text/plain',
        bytes: Buffer.byteLength(notes),
      }),
    );

    const addTemplate = page.getByRole('form', { name: 'Add a prompt template' });
    await addTemplate.getByLabel('Path').fill('docs/notes.txt');
    await addTemplate.getByLabel('Title').fill('Review');
    await addTemplate.getByLabel('Text').fill('Review this change:');
    await addTemplate.getByRole('button', { name: 'Add' }).click();
    await addTemplate
      .getByRole('alert')
      .getByText('An item already has the path docs/notes.txt.')
      .waitFor({ timeout: 30_000 });
    expect(await addTemplate.getByLabel('Path').getAttribute('aria-invalid')).toBe('true');
    expect(
      await page.evaluate(() => document.activeElement?.matches('form[data-form="template"] input[name="filepath"]')),
    ).toBe(true);
    await addTemplate.getByLabel('Path').fill('templates/review.md');
    await addTemplate.getByRole('button', { name: 'Add' }).click();
    await page.getByRole('status').getByText('Added templates/review.md.').waitFor({ timeout: 30_000 });
    expect(await items()).toContainEqual(
      expect.objectContaining({
        filepath: 'templates/review.md',
        title: 'Review',
        kind: 'prompt_template',
        content: 'Review this change:',
      }),
    );
    await page
      .getByRole('row', { name: /templates\/review\.md/ })
      .getByRole('cell', { name: 'Prompt template' })
      .waitFor();

    const confirm = page.getByRole('dialog', { name: 'Delete' });
    for (const filepath of ['docs/notes.txt', 'templates/review.md']) {
      await page.locator(`tr[data-filepath="${filepath}"]`).getByRole('button', { name: 'Delete' }).click();
      await confirm.getByText(`Delete ${filepath}?`, { exact: false }).waitFor();
      await confirm.getByRole('button', { name: 'Delete' }).click();
      await page.getByRole('status').getByText(`Deleted ${filepath}.`).waitFor({ timeout: 30_000 });
    }
    const filepaths = (await items()).map((item) => item.filepath);
    expect(filepaths).not.toContain('docs/notes.txt');
    expect(filepaths).not.toContain('templates/review.md');
    expect(filepaths).toContain('guides/house-style.md');
    await context.close();
  }, 120_000);

  it('shows a tenant administrator who is not an operator her tenant’s master data but no library, whose direct call is 403', async () => {
    const { context, page } = await signInToWebApp(
      browser,
      base,
      { login: 'tara', password: PASSWORD },
      { locale: 'en' },
    );
    const token = recordAdminToken(page);
    await page.getByRole('link', { name: 'Console' }).click();
    await page.getByRole('heading', { name: 'Users', level: 2 }).waitFor();
    const sections = page.getByRole('navigation', { name: 'Console sections' });
    const titles = await sections.getByRole('link').allTextContents();
    expect(titles).toContain('Master data');
    expect(titles).not.toContain('Library');
    await sections.getByRole('link', { name: 'Master data' }).click();
    const organizations = page.locator('[data-kind="organizations"]');
    await organizations.locator('tr[data-code="shared-org"]').getByText('Read only').waitFor();
    await page.locator('[data-kind="jobTypes"] tr[data-code="reviewer"]').waitFor();
    expect(await organizations.locator('tr[data-code="acme-only"]').count()).toBe(0);
    const listed = await api<{ organizations: ListedEntry[] }>(token(), '/api/v1/admin/organizations');
    expect(listed.body.organizations.map((entry) => entry.code)).not.toContain('acme-only');
    expect((await api(token(), '/api/v1/admin/library')).status).toBe(403);

    await page.goto(`${base}/console/library`);
    // An unknown section (for her) opens the first she may use.
    await page.getByRole('heading', { name: 'Users', level: 2 }).waitFor();
    expect(await page.getByRole('heading', { name: 'Library' }).count()).toBe(0);
    await context.close();
  }, 60_000);

  it('offers a plain user no console: no link, and /console/master-data says why', async () => {
    const { context, page } = await signInToWebApp(
      browser,
      base,
      { login: 'hal', password: PASSWORD },
      { locale: 'en' },
    );
    expect(await page.getByRole('link', { name: 'Console' }).count()).toBe(0);
    await page.goto(`${base}/console/master-data`);
    await page.getByRole('alert').getByText('Your account may not use the console').waitFor();
    await context.close();
  }, 60_000);

  it('is usable by keyboard alone: an organization created, its delete dialog cancelled by Escape (focus returns), then deleted', async () => {
    const { context, page } = await signInToWebApp(browser, base, demo.user, { locale: 'en' });
    await page.goto(`${base}/console/master-data`);
    await page.locator('[data-kind="organizations"] tr[data-code="shared-org"]').waitFor();
    await tabTo(page, '[data-kind="organizations"] form input[name="code"]');
    await page.keyboard.type('kbd');
    // The code's hint is text, not a stop: the next is the name.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('label');
    await page.keyboard.type('Keyboard team');
    await page.keyboard.press('Enter');
    await page.getByRole('status').getByText('Added kbd.').waitFor({ timeout: 30_000 });

    const remove = '[data-kind="organizations"] tr[data-code="kbd"] button[data-action="delete"]';
    await tabTo(page, remove, { backwards: true });
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'hidden' });
    expect(await page.evaluate((selector) => document.activeElement?.matches(selector), remove)).toBe(true);
    expect(await platformctl(['organizations', 'list', '--tenant', 'default'])).toMatch(/^kbd {2}"Keyboard team"$/m);

    await page.keyboard.press('Enter');
    await page.getByRole('dialog').waitFor();
    // Cancel has the focus; the next control is Delete.
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.getByRole('status').getByText('Deleted kbd.').waitFor({ timeout: 30_000 });
    // Its row is gone: the focus is on the screen's heading, not lost.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('master-data-title');
    expect(await platformctl(['organizations', 'list', '--tenant', 'default'])).not.toMatch(/^kbd /m);
    await context.close();
  }, 90_000);

  it('has no WCAG 2.1 AA violation (axe) in Japanese, English and Arabic (right to left) with a dialog open, and fits a phone', async () => {
    for (const [locale, width, height] of [
      ['ja', 1280, 800],
      ['en', 1280, 800],
      ['ar', 1280, 800],
      ['ar', 390, 844],
    ] as const) {
      const context = await axeContext(browser, { locale });
      const page = await context.newPage();
      await page.setViewportSize({ width, height });
      await page.goto(`${base}/console/master-data`);
      await submitLoginForm(page, demo.user);
      await page.locator('#master-data-title').waitFor();
      await page.locator('[data-kind="jobTypes"] tr[data-code="reviewer"]').waitFor();
      await page.locator('[data-kind="organizations"] tr[data-code="shared-org"]').waitFor();
      if (locale === 'ar') expect(await htmlLangDir(page)).toEqual(['ar', 'rtl']);
      if (width < 400) {
        // The phone layout: the tables scroll in their own boxes, the page does not scroll sideways.
        await expectNoAxeViolations(page);
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
        await page.goto(`${base}/console/library`);
        await page.locator('tr[data-filepath="guides/house-style.md"]').waitFor();
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      } else {
        await page.locator('[data-kind="jobTypes"] tr[data-code="reviewer"] button[data-action="edit"]').click();
        await page.getByRole('dialog').waitFor();
        await expectNoAxeViolations(page);
        await page.keyboard.press('Escape');
        await page.getByRole('dialog').waitFor({ state: 'hidden' });
        await page.locator('[data-kind="jobTypes"] tr[data-code="reviewer"] button[data-action="delete"]').click();
        await page.getByRole('dialog').waitFor();
        await expectNoAxeViolations(page);
        await page.goto(`${base}/console/library`);
        await page.locator('tr[data-filepath="guides/house-style.md"] button[data-action="delete"]').click();
        await page.getByRole('dialog').waitFor();
        await expectNoAxeViolations(page);
      }
      await context.close();
    }
  }, 150_000);
});
