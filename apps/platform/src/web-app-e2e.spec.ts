import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { type Browser } from 'playwright-core';
import { type ProcessHandle, buildDist, buildWeb, cleanEnv, freePort, startProcess } from '@fed/testing';
import {
  axeContext,
  axeViolations,
  describeWithChromium,
  expectNoAxeViolations,
  launchChromium,
} from '@fed/sign-in/testing';
import { type DemoCredentials } from './demo-realm';
import { ask, htmlLangDir, recordLogBusy, signInToWebApp, submitLoginForm, tabTo } from './testing/web-app';
import type { PageComputedStyle, PageDocument, PageElement } from './testing/page-globals';

declare const document: PageDocument;
declare const getComputedStyle: PageComputedStyle;
type Element = PageElement;

const main = 'dist/apps/platform/src/main.js';

/** The web app served by `npm start`, signed in to as the demo user in Chromium (issue 37's first screens). */
describeWithChromium('web-app-e2e.spec')('the web app of the all-in-one platform', () => {
  let dataDir: string;
  let port: number;
  let platform: ProcessHandle;
  let browser: Browser;
  let demo: DemoCredentials;
  let base: string;

  beforeAll(async () => {
    buildDist();
    buildWeb();
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'fed-web-'));
    port = await freePort();
    base = `http://localhost:${port}`;
    platform = startProcess(main, [], cleanEnv({ PORT: String(port), DATA_DIR: dataDir }));
    await platform.waitForOutput(/Press Ctrl-C to stop/, 60_000);
    demo = JSON.parse(readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8')) as DemoCredentials;
    browser = await launchChromium();
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    platform?.child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('prints the address to open', () => {
    expect(platform.output()).toMatch(new RegExp(`Web app \\(open in a browser\\) +${base}/\\n`));
  });

  it('serves index.html uncached under a CSP without inline script, hashed assets for a year, and no other file', async () => {
    const index = await fetch(`${base}/`);
    expect(index.status).toBe(200);
    expect(index.headers.get('cache-control')).toBe('no-cache');
    const csp = index.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("frame-ancestors 'none'");
    const html = await index.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    const config = JSON.parse(
      (/<meta name="fed-web-config" content="([^"]*)"/.exec(html)?.[1] ?? '').replace(/&quot;/g, '"'),
    ) as Record<string, unknown>;
    expect(config).toMatchObject({
      issuer: `${base}/realms/federation`,
      clientId: 'web',
      endSessionEndpoint: `${base}/federation/auth/v1/logout`,
    });
    const script = /<script type="module" crossorigin src="([^"]+)"/.exec(html)?.[1] as string;
    const asset = await fetch(`${base}${script}`);
    expect([asset.status, asset.headers.get('cache-control')]).toEqual([200, 'public, max-age=31536000, immutable']);
    expect(asset.headers.get('content-type')).toContain('text/javascript');
    for (const probe of ['/assets/../index.html', '/assets/%2e%2e/demo-credentials.json', '/assets/nope.js']) {
      expect([probe, (await fetch(`${base}${probe}`)).status]).toEqual([probe, 404]);
    }
    // A dot segment sent as is (fetch would normalize it away) names no file of the build.
    const raw = await new Promise<number>((resolve, reject) =>
      http
        .get(
          { host: '127.0.0.1', port, path: '/assets/../favicon.svg' },
          (r) => (r.resume(), resolve(r.statusCode ?? 0)),
        )
        .on('error', reject),
    );
    expect(raw).toBe(404);
    // The APIs keep their paths.
    expect((await fetch(`${base}/api/v1/users/me`)).status).toBe(401);
    // The app's paths take no body: a deeply nested or oversized one is refused before anything reads it.
    const post = (body: string) =>
      fetch(`${base}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then(
        (r) => r.status,
      );
    expect(await post('['.repeat(100_000) + ']'.repeat(100_000))).toBeGreaterThanOrEqual(400);
    expect(await post('['.repeat(100_000) + ']'.repeat(100_000))).toBeLessThan(500);
    const oversized = await post(JSON.stringify({ text: 'x'.repeat(3 * 1024 * 1024) }));
    expect([oversized >= 400, oversized < 500]).toEqual([true, true]);
  });

  it('signs the demo user in through the login page, shows who they are, keeps tokens out of storage, and signs out', async () => {
    const { context, page } = await signInToWebApp(browser, base, demo.user);
    await page.getByTestId('user-name').waitFor();
    expect(await page.getByTestId('user-name').textContent()).toBe('Demo User');
    expect(new URL(page.url()).pathname).toBe('/');

    const stored = await page.evaluate(
      () => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }),
    );
    expect(stored).not.toMatch(/eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\./);

    // A new page signs in again through the provider's session, without the form.
    await page.reload();
    await page.getByTestId('user-name').waitFor();

    // Shift+Enter is a new line, Enter sends; the offline demo model's answer streams in and ends completed.
    const composer = page.getByLabel('Message', { exact: true });
    await composer.fill('Hello');
    await composer.press('Shift+Enter');
    await composer.pressSequentially('there');
    expect(await composer.inputValue()).toBe('Hello\nthere');
    await composer.press('Enter');
    const answer = page.getByTestId('answer').last();
    await page.locator('[data-testid="answer"][data-phase="completed"]').waitFor({ timeout: 20_000 });
    expect((await answer.locator('.answer-text').textContent())?.length).toBeGreaterThan(0);
    expect(await page.locator('.question').last().textContent()).toBe('Hello\nthere');
    expect(await composer.inputValue()).toBe('');
    expect(await page.getByRole('log').getAttribute('aria-busy')).toBe('false');
    // The demo model calls one of the agent's tools first: its step is shown, ended, with its result on demand.
    const step = answer.getByRole('list', { name: "The agent's steps" }).getByRole('listitem').first();
    expect(await step.locator('.task-status').textContent()).toBe('Done');
    await step.locator('summary').click();
    await step.getByRole('heading', { name: 'Result' }).waitFor();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('You are signed out.').waitFor();
    expect(new URL(page.url()).pathname).toBe('/signed-out');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByLabel('Password').waitFor();
    await context.close();
  }, 60_000);

  it('lists conversations in the sidebar, opens one with its history, renames, archives and restores, deletes', async () => {
    const { context, page } = await signInToWebApp(browser, base, demo.user);
    const composer = page.getByLabel('Message', { exact: true });
    await composer.fill('First question');
    await composer.press('Enter');
    await page.locator('[data-testid="answer"][data-phase="completed"]').waitFor({ timeout: 20_000 });
    await page.waitForURL(/\/c\/[0-9a-f-]{36}$/);
    const conversationId = new URL(page.url()).pathname.slice(3);
    const sidebar = page.getByRole('navigation', { name: 'Conversations' });
    const item = sidebar.locator(`[data-conversation-id="${conversationId}"]`);
    await item.waitFor();

    // The conversation's address opens it with its history.
    await page.reload();
    await page.locator('.question', { hasText: 'First question' }).waitFor();
    expect(await page.locator('[data-testid="answer"][data-phase="completed"]').count()).toBe(1);

    await item.getByRole('button', { name: /^Rename/ }).click();
    await item.getByLabel('Title').fill('Renamed <b>chat</b>');
    await item.getByRole('button', { name: 'Save' }).click();
    await item.getByRole('button', { name: 'Renamed <b>chat</b>', exact: true }).waitFor();

    // Archived (as chat-service does to idle ones, here by platformctl), it is in the archive view and comes back.
    const archived = startProcess(
      'dist/apps/platformctl/src/main.js',
      ['conversations', 'archive', conversationId],
      cleanEnv({ DATA_DIR: dataDir }),
    );
    expect(await archived.exited(30_000)).toBe(0);
    await sidebar.getByRole('button', { name: 'Archive' }).click();
    const inArchive = sidebar.locator(`[data-conversation-id="${conversationId}"]`);
    await inArchive.getByRole('button', { name: 'Restore' }).click();
    await sidebar.getByRole('button', { name: 'Chats' }).click();
    await sidebar.locator(`[data-conversation-id="${conversationId}"]`).waitFor();

    page.once('dialog', (dialog) => void dialog.accept());
    await sidebar
      .locator(`[data-conversation-id="${conversationId}"]`)
      .getByRole('button', { name: /^Delete/ })
      .click();
    await sidebar.locator(`[data-conversation-id="${conversationId}"]`).waitFor({ state: 'detached' });
    expect(new URL(page.url()).pathname).toBe('/');
    await context.close();
  }, 90_000);

  it("shows the agent's request (ask_user) and answers it with the next message of the conversation", async () => {
    const { context, page } = await signInToWebApp(browser, base, demo.user);
    const composer = page.getByLabel('Message', { exact: true });
    // The demo model calls the tool the user names, with the user's words as its question.
    await composer.fill('Please ask_user which colour I like');
    await composer.press('Enter');
    const request = page.getByTestId('interaction');
    await request.waitFor({ timeout: 20_000 });
    expect(await request.getByRole('heading').textContent()).toBe('The agent asks you to choose');
    expect(await request.locator('.interaction-content').textContent()).toContain('which colour I like');
    await page.waitForURL(/\/c\/[0-9a-f-]{36}$/);

    // Reloaded, the history shows the request still open.
    await page.reload();
    await page.getByTestId('interaction').getByText('Answer in the message box below.').waitFor();
    await composer.fill('Blue');
    await composer.press('Enter');
    await page.getByTestId('interaction').getByText('Answered.').waitFor();
    await page.locator('.question', { hasText: 'Blue' }).waitFor();
    await context.close();
  }, 90_000);

  it("sends the options chosen in the composer with the chat request, from the catalog's lists", async () => {
    const { context, page } = await signInToWebApp(browser, base, demo.user);
    const bodies: Record<string, unknown>[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().endsWith('/api/v1/chat/completions')) {
        bodies.push(request.postDataJSON() as Record<string, unknown>);
      }
    });
    await page.getByText('Options', { exact: true }).click();
    await page.getByLabel('Persona').selectOption({ label: 'Concise analyst' });
    await page.getByLabel('Answer format').selectOption('plain');
    await page.getByLabel('Private mode').check();
    await page.getByLabel('Agent mode (tools)').uncheck();
    await page.getByLabel('Work report').selectOption('without');
    await ask(page, 'With options');
    await page.locator('[data-testid="answer"][data-phase="completed"]').waitFor({ timeout: 20_000 });
    expect(bodies).toEqual([
      expect.objectContaining({
        model: expect.any(String),
        stream: true,
        personaKey: 'concise-analyst',
        outputFormat: 'plain',
        privateMode: true,
        agentMode: false,
        reportMode: 'without',
        agentLevel: 'default',
        messages: [{ role: 'user', content: 'With options' }],
      }),
    ]);
    await context.close();
  }, 60_000);

  it('searches messages and opens a result at its message, the snippet shown as text with its match marked', async () => {
    const { context, page } = await signInToWebApp(browser, base, demo.user);
    await ask(page, 'Tell me about the <i>quokka</i> of Rottnest');
    await page.locator('[data-testid="answer"][data-phase="completed"]').waitFor({ timeout: 20_000 });
    await page.waitForURL(/\/c\/[0-9a-f-]{36}$/);
    const conversationId = new URL(page.url()).pathname.slice(3);
    await page.getByRole('button', { name: 'New chat' }).click();
    expect(new URL(page.url()).pathname).toBe('/');

    await page.getByRole('searchbox', { name: 'Search messages' }).fill('quokka');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const result = page.getByRole('list', { name: 'Search results' }).getByRole('button').first();
    await result.waitFor();
    expect(await result.locator('mark').first().textContent()).toBe('quokka');
    expect(await result.locator('i').count()).toBe(0);
    expect(await result.textContent()).toContain('<i>');
    await result.click();
    await page.waitForURL(new RegExp(`/c/${conversationId}\\?m=`));
    await page.locator('.found').waitFor();
    expect(await page.locator('.found').textContent()).toContain('quokka');
    await context.close();
  }, 60_000);

  it('attaches files (uploaded with progress, cancellable), sends them with the message, and downloads what the agent wrote', async () => {
    const { context, page } = await signInToWebApp(browser, base, demo.user, { acceptDownloads: true });
    const bodies: Record<string, unknown>[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().endsWith('/api/v1/chat/completions')) {
        bodies.push(request.postDataJSON() as Record<string, unknown>);
      }
    });
    const attached = page.getByRole('list', { name: 'Attached files' });

    // An upload still under way (held here, as on a slow line) is cancelled: it leaves the list.
    await page.route('**/api/v1/files', () => undefined, { times: 1 });
    const aborted = page.waitForEvent('requestfailed', (request) => request.url().endsWith('/api/v1/files'));
    await page.getByLabel('Attach files').setInputFiles({
      name: 'big.bin',
      mimeType: 'application/octet-stream',
      buffer: Buffer.alloc(1024 * 1024),
    });
    await attached.getByRole('progressbar', { name: 'Uploading big.bin' }).waitFor();
    await attached.getByRole('button', { name: 'Cancel big.bin' }).click();
    await aborted;
    expect(await attached.count()).toBe(0);

    await page.getByLabel('Attach files').setInputFiles({
      name: 'notes.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('The meeting moved to Thursday.'),
    });
    await attached.locator('[data-state="uploaded"]').waitFor();
    await ask(page, 'Read the attached notes');
    await page.locator('[data-testid="answer"][data-phase="completed"]').waitFor({ timeout: 20_000 });
    const content = (bodies[0]?.messages as { content: unknown }[])[0]?.content;
    expect(content).toEqual([
      { type: 'text', text: 'Read the attached notes' },
      { type: 'input_file', fileId: expect.stringMatching(/^[0-9a-f-]{36}$/) },
    ]);
    expect(await page.locator('.question .message-file').textContent()).toBe('notes.txt');
    expect(await attached.count()).toBe(0);

    // The demo model calls the tool the user names: write_file stores a deliverable named after the words.
    await ask(page, 'write_file summary.txt');
    await page.locator('[data-testid="answer"][data-phase="completed"]').nth(1).waitFor({ timeout: 20_000 });
    const files = page.getByRole('list', { name: 'Files from the agent' });
    const downloading = page.waitForEvent('download');
    await files.getByRole('button').first().click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe('write_file summary.txt');
    expect(readFileSync(await download.path(), 'utf8')).toBe('write_file summary.txt');
    await context.close();
  }, 90_000);

  it('has no WCAG 2.1 AA violation (axe) on the signed-out page, the workspace with an answer and a request, and on a phone', async () => {
    // axe-core is injected as a script, which the app's CSP forbids: the context bypasses it for the audit only.
    for (const viewport of [
      { width: 1280, height: 800 },
      { width: 390, height: 844 },
    ]) {
      const context = await axeContext(browser, { locale: 'en' });
      const page = await context.newPage();
      await page.setViewportSize(viewport);
      await page.goto(`${base}/signed-out`);
      await page.getByText('You are signed out.').waitFor();
      await expectNoAxeViolations(page);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByLabel('E-mail address or username').fill(demo.user.login);
      await page.getByLabel('Password').fill(demo.user.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByLabel('Message', { exact: true }).fill('Please ask_user for a colour');
      await page.getByLabel('Message', { exact: true }).press('Enter');
      await page.getByTestId('interaction').waitFor({ timeout: 20_000 });
      await page.getByText('Options', { exact: true }).click();
      await expectNoAxeViolations(page);
      await context.close();
    }
  }, 90_000);

  it('speaks the chosen language: the switcher changes the text, lang and dir (Arabic right to left), the choice survives a reload, and sign-in opens the login page in it', async () => {
    const context = await browser.newContext({ locale: 'en' });
    const page = await context.newPage();
    await page.goto(`${base}/signed-out`);
    await page.getByText('You are signed out.').waitFor();
    expect(await htmlLangDir(page)).toEqual(['en', 'ltr']);
    // Each language is offered in its own name.
    const names = await page.getByLabel('Language').locator('option').allTextContents();
    expect(names).toHaveLength(14);
    expect(names).toEqual(expect.arrayContaining(['日本語', 'English', 'العربية', 'Deutsch', '繁體中文']));

    await page.getByLabel('Language').selectOption('ar');
    await page.getByText('تم تسجيل خروجك.').waitFor();
    expect(await htmlLangDir(page)).toEqual(['ar', 'rtl']);
    expect(await page.title()).toBe('وكيل Federation');
    await page.reload();
    await page.getByLabel('اللغة').waitFor();
    expect(await htmlLangDir(page)).toEqual(['ar', 'rtl']);

    // ui_locales: the platform's login page opens in Arabic.
    await page.getByRole('button', { name: 'تسجيل الدخول' }).click();
    await page.locator('#password').waitFor();
    expect(new URL(page.url()).origin).toBe(base);
    expect(await htmlLangDir(page)).toEqual(['ar', 'rtl']);
    await submitLoginForm(page, demo.user);
    await page.getByLabel('الرسالة', { exact: true }).waitFor();
    expect(await htmlLangDir(page)).toEqual(['ar', 'rtl']);
    // The layout mirrors: the sidebar is on the right, the message box's Send button at its left end.
    const sidebar = await page.locator('.sidebar').boundingBox();
    const main = await page.locator('#main').boundingBox();
    expect(sidebar && main && sidebar.x > main.x).toBe(true);

    // From the user menu: Japanese, left to right, at once and after a reload.
    await page.getByLabel('اللغة').selectOption('ja');
    await page.getByRole('button', { name: 'ログアウト' }).waitFor();
    expect(await htmlLangDir(page)).toEqual(['ja', 'ltr']);
    expect(await page.getByLabel('メッセージ', { exact: true }).getAttribute('placeholder')).toBe(
      'エージェントに質問する',
    );
    await page.reload();
    await page.getByRole('button', { name: 'ログアウト' }).waitFor();
    expect(await page.evaluate(() => localStorage.getItem('fed.locale'))).toBe('ja');
    await context.close();
  }, 60_000);

  it('shows the light or dark theme: the system one while the choice is System, else the choice, kept across a reload, always named on <html data-theme>', async () => {
    const { context, page } = await signInToWebApp(browser, base, demo.user, { locale: 'en', colorScheme: 'light' });
    const theme = () =>
      page.evaluate(() => ({
        theme: document.documentElement.dataset.theme,
        colorScheme: document.documentElement.style.colorScheme,
        background: getComputedStyle(document.documentElement).backgroundColor,
      }));
    const light = { theme: 'light', colorScheme: 'light', background: 'rgb(251, 251, 253)' };
    const dark = { theme: 'dark', colorScheme: 'dark', background: 'rgb(21, 23, 28)' };
    expect(await page.getByLabel('Theme').inputValue()).toBe('system');
    expect(await theme()).toEqual(light);
    // The system turns dark: the page follows while the choice is System.
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
    expect(await theme()).toEqual(dark);
    // A choice holds whatever the system says, and across a reload.
    await page.getByLabel('Theme').selectOption('light');
    expect(await theme()).toEqual(light);
    expect(await page.evaluate(() => localStorage.getItem('fed.theme'))).toBe('light');
    await page.reload();
    await page.getByLabel('Message', { exact: true }).waitFor();
    expect(await theme()).toEqual(light);
    await page.getByLabel('Theme').selectOption('dark');
    await page.emulateMedia({ colorScheme: 'light' });
    expect(await theme()).toEqual(dark);
    await context.close();
  }, 60_000);

  it('has no WCAG 2.1 AA violation (axe) in Japanese, English and Arabic, light and dark: signed out, the workspace with a request and the options open, search results, the archive; Arabic also on a phone', async () => {
    const context = await axeContext(browser, { locale: 'en' });
    const page = await context.newPage();
    await page.emulateMedia({ colorScheme: 'light' });
    const language = page.locator('select:has(option[value="ar"])');
    const audit = async (screen: string) => {
      const [lang, dir] = await htmlLangDir(page);
      const theme = await page.evaluate(() => document.documentElement.dataset.theme);
      const violations = (await axeViolations(page)).map((v) => `${v.id}: ${v.help} at ${v.targets.join(', ')}`);
      expect({ screen, lang, dir, theme, violations }).toEqual({ screen, lang, dir, theme, violations: [] });
    };

    await page.goto(`${base}/signed-out`);
    for (const locale of ['ja', 'en', 'ar']) {
      await language.selectOption(locale);
      await page.waitForFunction((wanted) => document.documentElement.lang === wanted, locale);
      await audit('signed out');
    }
    await language.selectOption('en');
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
    await audit('signed out');
    await page.emulateMedia({ colorScheme: 'light' });

    await page.getByRole('button', { name: 'Sign in' }).click();
    await submitLoginForm(page, demo.user);
    await ask(page, 'Please ask_user for a colour');
    await page.getByTestId('interaction').waitFor({ timeout: 20_000 });
    await page.waitForURL(/\/c\/[0-9a-f-]{36}$/);
    const conversationId = new URL(page.url()).pathname.slice(3);
    await page.locator('.turn-options summary').click();
    await page.getByRole('searchbox').fill('colour');
    await page.getByRole('searchbox').press('Enter');
    await page.locator('.search-result').first().waitFor();
    // Archived (by platformctl), so the archive view lists something.
    const archived = startProcess(
      'dist/apps/platformctl/src/main.js',
      ['conversations', 'archive', conversationId],
      cleanEnv({ DATA_DIR: dataDir }),
    );
    expect(await archived.exited(30_000)).toBe(0);

    const modes = page.locator('.modes button');
    for (const { locale, theme, width, height } of [
      { locale: 'ar', theme: 'light', width: 1280, height: 800 },
      { locale: 'ar', theme: 'light', width: 390, height: 844 },
      { locale: 'ar', theme: 'dark', width: 390, height: 844 },
      { locale: 'ja', theme: 'light', width: 1280, height: 800 },
      { locale: 'en', theme: 'dark', width: 1280, height: 800 },
    ]) {
      await page.setViewportSize({ width, height });
      await language.selectOption(locale);
      await page.locator('select:has(option[value="dark"])').selectOption(theme);
      await modes.first().click();
      await page.locator('.search-result').first().waitFor();
      await audit(`workspace and search results at ${width}px`);
      // Nothing pushes the page wider than the screen (long words, the composer's buttons, either direction).
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(width);
      await modes.nth(1).click();
      await page.locator(`[data-conversation-id="${conversationId}"]`).waitFor();
      await audit(`archive at ${width}px`);
    }
    await context.close();
  }, 120_000);

  it('works by keyboard alone (sign in, skip to the message box, send, the options, answer the request, open a conversation from the sidebar, rename it, sign out) and marks the log busy while an answer streams', async () => {
    const context = await browser.newContext({ locale: 'en' });
    const page = await context.newPage();
    const { keyboard } = page;
    const focusedOutline = () => page.evaluate(() => getComputedStyle(document.activeElement as Element).outlineStyle);
    await page.goto(`${base}/`);
    await page.locator('#login').waitFor();
    await tabTo(page, '#login');
    await keyboard.type(demo.user.login);
    await tabTo(page, '#password');
    await keyboard.type(demo.user.password);
    await keyboard.press('Enter');
    await page.getByLabel('Message', { exact: true }).waitFor();

    // The first Tab offers the skip link, which leads to the message box.
    await tabTo(page, '.skip-link', { limit: 1 });
    expect(await focusedOutline()).not.toBe('none');
    await keyboard.press('Enter');
    await tabTo(page, '#composer-text', { limit: 0 });

    const log = page.getByRole('log');
    expect(await log.getAttribute('aria-live')).toBe('polite');
    const busy = await recordLogBusy(page);
    await keyboard.type('Please ask_user which colour I like');
    await keyboard.press('Enter');
    const request = page.getByTestId('interaction');
    await request.getByText('Answer in the message box below.').waitFor({ timeout: 20_000 });
    await page.waitForURL(/\/c\/[0-9a-f-]{36}$/);
    const conversationId = new URL(page.url()).pathname.slice(3);
    // Busy from the question to the answer's end, once: screen readers announce it as it starts and as it ends.
    expect(await busy()).toEqual(['false', 'true', 'false']);

    // The options: back to their disclosure, opened with Space.
    await tabTo(page, '.turn-options summary', { backwards: true });
    expect(await focusedOutline()).not.toBe('none');
    await keyboard.press('Space');
    expect(await page.locator('.turn-options').getAttribute('open')).toBe('');
    await tabTo(page, 'select', { limit: 1 });

    // The request (a choice without options) is answered from the message box.
    await tabTo(page, '#composer-text');
    await keyboard.type('Blue');
    await keyboard.press('Enter');
    await request.getByText('Answered.').waitFor({ timeout: 20_000 });
    await page.locator('[data-testid="answer"][data-phase="completed"]').nth(1).waitFor({ timeout: 20_000 });

    // A new chat, then the conversation again from the sidebar.
    await tabTo(page, '.new-chat', { backwards: true, limit: 200 });
    await keyboard.press('Enter');
    await page.waitForURL(`${base}/`);
    const item = `[data-conversation-id="${conversationId}"]`;
    await tabTo(page, `${item} .conversation-title`, { limit: 200 });
    await keyboard.press('Enter');
    await page.waitForURL(`${base}/c/${conversationId}`);
    await page.locator('.question', { hasText: 'Blue' }).waitFor();

    // Rename: the title is selected, so typing replaces it; Enter saves and the focus comes back to Rename.
    await tabTo(page, `${item} button[aria-label^="Rename"]`, { limit: 1 });
    await keyboard.press('Enter');
    await tabTo(page, `${item} input`, { limit: 0 });
    await keyboard.type('Chosen by keyboard');
    await keyboard.press('Enter');
    await page.locator(`${item} .conversation-title`, { hasText: 'Chosen by keyboard' }).waitFor();
    await tabTo(page, `${item} button[aria-label^="Rename"]`, { limit: 0 });
    // Escape leaves a rename unsaved.
    await keyboard.press('Enter');
    await keyboard.type('Not kept');
    await keyboard.press('Escape');
    await tabTo(page, `${item} button[aria-label^="Rename"]`, { limit: 0 });
    expect(await page.locator(`${item} .conversation-title`).textContent()).toBe('Chosen by keyboard');

    // Sign out, here and on the platform's page (whose button has the focus).
    await tabTo(page, '.user-menu > button', { backwards: true, limit: 200 });
    await keyboard.press('Enter');
    await page.getByRole('button', { name: 'Stay signed in' }).waitFor();
    await tabTo(page, 'button[value="sign_out"]', { limit: 0 });
    await keyboard.press('Enter');
    await page.getByText('You are signed out.').waitFor();
    await context.close();
  }, 90_000);

  it('follows PUBLIC_URL: after a restart under another address the web client redirects there', async () => {
    platform.child.kill('SIGTERM');
    await platform.exited(30_000);
    const other = `http://127.0.0.1:${port}`;
    platform = startProcess(main, [], cleanEnv({ PORT: String(port), DATA_DIR: dataDir, PUBLIC_URL: other }));
    await platform.waitForOutput(/Press Ctrl-C to stop/, 60_000);
    const { context, page } = await signInToWebApp(browser, other, demo.user);
    await page.getByTestId('user-name').waitFor();
    expect(new URL(page.url()).origin).toBe(other);
    await context.close();
  }, 90_000);
});
