import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Browser } from 'playwright-core';
import { type ProcessHandle, buildDist, buildWeb, cleanEnv, freePort, startProcess } from '@fed/testing';
import { axeContext, describeWithChromium, expectNoAxeViolations, launchChromium } from '@fed/sign-in/testing';
import { type DemoCredentials } from './demo-realm';
import type { PageDocument } from './testing/page-globals';
import { htmlLangDir, signInToWebApp, submitLoginForm, tabTo } from './testing/web-app';

declare const document: PageDocument;

const main = 'dist/apps/platform/src/main.js';
const cli = 'dist/apps/platformctl/src/main.js';
const PASSWORD = 'a long passphrase for the console';
// More than one page of 25, so the pager has somewhere to go.
const CROWD = 27;

interface ListedUser {
  userId: string;
  email: string;
  role: string;
  status: string;
}

/** Issue 38, "The screens: Users": the demo administrator of `npm start` manages users in the console. */
describeWithChromium('console-users-e2e.spec')('the console: users', () => {
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

  // What the database holds, read by platformctl (not through the screen): the users whose address has `search`.
  async function listed(search: string): Promise<ListedUser[]> {
    return (await platformctl(['users', 'list']))
      .split('\n')
      .map((line) => line.split(/ {2}/))
      .filter(([, email]) => email?.includes(search))
      .map(([userId, email, role, status]) => ({
        userId: userId!,
        email: email!,
        role: role!.split('+')[0]!,
        status: status!,
      }));
  }

  beforeAll(async () => {
    buildDist();
    buildWeb();
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'fed-console-'));
    const port = await freePort();
    base = `http://localhost:${port}`;
    platform = startProcess(main, [], cleanEnv({ PORT: String(port), DATA_DIR: dataDir }));
    await platform.waitForOutput(/Press Ctrl-C to stop/, 60_000);
    demo = JSON.parse(readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8')) as DemoCredentials;
    const realm = path.join(dataDir, 'console-users.json');
    writeFileSync(
      realm,
      JSON.stringify({
        realm: 'federation',
        tenants: [{ name: 'acme', type: 'saas', endpoint: 'https://acme.example.com' }],
        users: [
          { email: 'dana@example.com', username: 'dana', displayName: 'Dana', status: 'pending', password: PASSWORD },
          { email: 'erin@example.com', username: 'erin', displayName: 'Erin', password: PASSWORD },
          { email: 'gwen@example.com', username: 'gwen', displayName: 'Gwen', password: PASSWORD },
          { email: 'hal@example.com', username: 'hal', displayName: 'Hal', password: PASSWORD },
          // Another tenant's admin and user: never on this tenant's screens.
          { email: 'frank@acme.example.com', displayName: 'Frank', role: 'admin', tenant: 'acme', password: PASSWORD },
          { email: 'ivy@acme.example.com', displayName: 'Ivy', status: 'pending', tenant: 'acme' },
          ...Array.from({ length: CROWD }, (_, n) => ({
            email: `crowd${String(n).padStart(2, '0')}@example.com`,
            displayName: `Crowd ${n}`,
          })),
        ],
      }),
    );
    await platformctl(['realm', 'import', realm]);
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    platform?.child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('takes the demo administrator from the chat to the console, where the user waiting for approval comes first; approving asks first, then approves', async () => {
    const { context, page } = await signInToWebApp(browser, base, demo.user, { locale: 'en' });
    await page.getByRole('link', { name: 'Console' }).click();
    await page.getByRole('heading', { name: 'Users', level: 2 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/console');
    const waiting = page.getByRole('region', { name: 'Waiting for approval' });
    await waiting.getByRole('rowheader', { name: 'dana@example.com' }).waitFor();
    // Another tenant's pending user is not this tenant's to approve.
    expect(await waiting.getByRole('rowheader').allTextContents()).toEqual(['dana@example.com']);

    await waiting.getByRole('button', { name: 'Approve' }).click();
    const dialog = page.getByRole('dialog', { name: 'Approve' });
    await dialog.getByText('Approve dana@example.com?').waitFor();
    // Cancel changes nothing.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await listed('dana'))[0]?.status).toBe('pending');

    await waiting.getByRole('button', { name: 'Approve' }).click();
    await dialog.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('status').getByText('Approve: dana@example.com').waitFor();
    await page.getByText('No one is waiting for approval.').waitFor();
    expect((await listed('dana'))[0]?.status).toBe('approved');
    await context.close();
  }, 60_000);

  it('makes a user an administrator and back, withdraws an approval and deletes a user, each behind its dialog', async () => {
    const { context, page } = await signInToWebApp(browser, base, demo.user, { locale: 'en' });
    await page.goto(`${base}/console/users`);
    const everyone = page.getByRole('region', { name: 'All users' });
    await page.getByRole('searchbox', { name: 'Search' }).fill('erin');
    await page.getByRole('button', { name: 'Apply' }).click();
    await everyone.getByRole('rowheader', { name: 'erin@example.com' }).waitFor();

    await everyone.getByRole('button', { name: 'Make administrator' }).click();
    await page.getByRole('dialog').getByText('It applies from their next sign-in').waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Make administrator' }).click();
    await everyone.getByRole('button', { name: 'Make user' }).waitFor();
    expect((await listed('erin'))[0]?.role).toBe('admin');

    await everyone.getByRole('button', { name: 'Make user' }).click();
    await page.getByRole('dialog').getByText('Their sessions end everywhere').waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Make user' }).click();
    await everyone.getByRole('button', { name: 'Make administrator' }).waitFor();
    expect((await listed('erin'))[0]?.role).toBe('user');

    await everyone.getByRole('button', { name: 'Withdraw approval' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Withdraw approval' }).click();
    await everyone.getByRole('cell', { name: 'Pending' }).waitFor();
    expect((await listed('erin'))[0]?.status).toBe('pending');

    await page.getByRole('searchbox', { name: 'Search' }).fill('gwen');
    await page.getByRole('button', { name: 'Apply' }).click();
    await everyone.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByText('Delete gwen@example.com?').waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No user matches.').waitFor();
    expect(await listed('gwen')).toEqual([]);

    // The administrator's own row offers no delete (the API refuses it too).
    await page.getByRole('searchbox', { name: 'Search' }).fill('demo@example.com');
    await page.getByRole('button', { name: 'Apply' }).click();
    const own = everyone.getByRole('row').nth(1);
    await own.waitFor();
    expect(await own.getByRole('button', { name: 'Delete' }).count()).toBe(0);
    await context.close();
  }, 90_000);

  it('filters by approval and role, pages through the list, and never shows another tenant’s users', async () => {
    const { context, page } = await signInToWebApp(browser, base, demo.user, { locale: 'en' });
    await page.goto(`${base}/console/users`);
    const everyone = page.getByRole('region', { name: 'All users' });
    await page.getByText(/^Page 1 of 2 \(\d+ users\)$/).waitFor();
    const firstPage = await everyone.getByRole('rowheader').allTextContents();
    expect(firstPage).toHaveLength(25);
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByText(/^Page 2 of 2/).waitFor();
    const secondPage = await everyone.getByRole('rowheader').allTextContents();
    expect(secondPage.some((email) => firstPage.includes(email))).toBe(false);
    expect([...firstPage, ...secondPage].filter((email) => email.endsWith('@acme.example.com'))).toEqual([]);
    expect(await page.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);

    await page.getByLabel('Role', { exact: true }).selectOption('admin');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText(/^Page 1 of 1 /).waitFor();
    expect(await everyone.getByRole('rowheader').allTextContents()).toContain('demo@example.com');
    expect(await everyone.getByRole('cell', { name: 'User', exact: true }).count()).toBe(0);

    await page.getByLabel('Role', { exact: true }).selectOption('');
    await page.getByLabel('Approval', { exact: true }).selectOption('false');
    await page.getByRole('button', { name: 'Apply' }).click();
    await everyone.getByRole('rowheader', { name: 'erin@example.com' }).waitFor();
    expect(await everyone.getByRole('cell', { name: 'Approved', exact: true }).count()).toBe(0);
    await context.close();
  }, 60_000);

  it('offers a plain user no console: no link, and /console says why without calling an admin route', async () => {
    const { context, page } = await signInToWebApp(
      browser,
      base,
      { login: 'hal', password: PASSWORD },
      { locale: 'en' },
    );
    expect(await page.getByRole('link', { name: 'Console' }).count()).toBe(0);
    const adminCalls: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname.startsWith('/api/v1/admin/')) adminCalls.push(request.url());
    });
    await page.goto(`${base}/console/users`);
    await page.getByRole('alert').getByText('Your account may not use the console').waitFor();
    expect(adminCalls).toEqual([]);
    await context.close();
  }, 60_000);

  it('is usable by keyboard alone: skip link, filters, a row action and its dialog (Escape cancels, focus returns)', async () => {
    const { context, page } = await signInToWebApp(browser, base, demo.user, { locale: 'en' });
    await page.goto(`${base}/console/users`);
    await page.getByRole('heading', { name: 'Users', level: 2 }).waitFor();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
    await tabTo(page, 'input[name="search"]');
    await page.keyboard.type('hal');
    await page.keyboard.press('Enter');
    await page.getByRole('region', { name: 'All users' }).getByRole('rowheader', { name: 'hal@example.com' }).waitFor();
    await tabTo(page, 'button[data-action="promote"]');
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'hidden' });
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Make administrator');
    expect((await listed('hal'))[0]?.role).toBe('user');
    await context.close();
  }, 60_000);

  it('has no WCAG 2.1 AA violation (axe) in Japanese, English and Arabic (right to left), with a dialog open, and on a phone', async () => {
    for (const [locale, width, height] of [
      ['ja', 1280, 800],
      ['en', 1280, 800],
      ['ar', 1280, 800],
      ['ar', 390, 844],
    ] as const) {
      const context = await axeContext(browser, { locale });
      const page = await context.newPage();
      await page.setViewportSize({ width, height });
      await page.goto(`${base}/console/users`);
      await submitLoginForm(page, demo.user);
      await page.locator('#users-title').waitFor();
      await page.locator('tbody tr').first().waitFor();
      if (locale === 'ar') expect(await htmlLangDir(page)).toEqual(['ar', 'rtl']);
      await expectNoAxeViolations(page);
      if (width < 400) {
        // The phone layout: the table scrolls in its own box, the page does not scroll sideways.
        const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
        expect(scrollWidth).toBeLessThanOrEqual(width);
      } else {
        await page.locator('tbody tr').first().locator('button').first().click();
        await page.getByRole('dialog').waitFor();
        await expectNoAxeViolations(page);
      }
      await context.close();
    }
  }, 120_000);
});
