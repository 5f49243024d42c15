import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { type Browser } from 'playwright-core';
import { type ProcessHandle, buildDist, buildWeb, cleanEnv, freePort, startProcess } from '@fed/testing';
import { axeContext, describeWithChromium, expectNoAxeViolations, launchChromium } from '@fed/sign-in/testing';
import { type DemoCredentials } from './demo-realm';
import { ask, signInToWebApp } from './testing/web-app';

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
