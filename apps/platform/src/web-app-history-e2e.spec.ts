import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { type ProcessHandle, buildDist, buildWeb, cleanEnv, freePort, startProcess } from '@fed/testing';
import { describeWithChromium, launchChromium } from '@fed/sign-in/testing';
import { type DemoCredentials } from './demo-realm';
import type {
  PageClipboardEventClass,
  PageDataTransfer,
  PageDataTransferClass,
  PageFileClass,
} from './testing/page-globals';
import { ask, signInToWebApp } from './testing/web-app';

declare const DataTransfer: PageDataTransferClass;
declare const File: PageFileClass;
declare const ClipboardEvent: PageClipboardEventClass;

const main = 'dist/apps/platform/src/main.js';
/** Three pages of history (100 each) and a half. */
const LONG = 350;
/** A 2x2 PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEElEQVR4nGP4z8AARAwQCgAf7gP9i18U1AAAAABJRU5ErkJggg==',
  'base64',
);

/** The web app on long conversations (older pages as the list scrolls up) and the library in the composer. */
describeWithChromium('web-app-history-e2e.spec')('the web app: long history and the library', () => {
  let database: TestDatabase;
  let dataDir: string;
  let base: string;
  let platform: ProcessHandle;
  let browser: Browser;
  let demo: DemoCredentials;
  let page: Page;

  beforeAll(async () => {
    buildDist();
    buildWeb();
    database = await createTestDatabase();
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'fed-web-history-'));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    platform = startProcess(
      main,
      [],
      cleanEnv({ PORT: String(port), PUBLIC_URL: base, DATA_DIR: dataDir, DATABASE_URL: database.url }),
    );
    await platform.waitForOutput(/Press Ctrl-C to stop/, 60_000);
    demo = JSON.parse(readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8')) as DemoCredentials;
    browser = await launchChromium();
    page = (await signInToWebApp(browser, base, demo.user)).page;
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    platform?.child.kill('SIGKILL');
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** A conversation of the demo user with `size` numbered messages, oldest first; their ids. */
  async function seedConversation(size: number): Promise<{ conversationId: string; messageIds: string[] }> {
    const [owner] = (await database.dataSource.query(
      `SELECT "user_id" AS "userId", "tenant_id" AS "tenantId" FROM "conversations"."conversations" LIMIT 1`,
    )) as { userId: string; tenantId: string | null }[];
    const conversationId = randomUUID();
    const messageIds = Array.from({ length: size }, () => randomUUID());
    await database.dataSource.query(
      `INSERT INTO "conversations"."conversations" ("id", "user_id", "tenant_id", "title", "created_at", "updated_at")
       VALUES ($1, $2, $3, 'A long conversation', now() - interval '2 days', now())`,
      [conversationId, owner.userId, owner.tenantId],
    );
    await database.dataSource.query(
      `INSERT INTO "conversations"."messages"
         ("id", "conversation_id", "user_id", "tenant_id", "sender", "text", "search_config", "created_at", "updated_at")
       SELECT m."id", $1::uuid, $2::text, $3::text,
              CASE WHEN m.n % 2 = 1 THEN 'User' ELSE 'AI' END, 'Message number ' || m.n, 'english',
              now() - ($4::int - m.n) * interval '1 minute', now() - ($4::int - m.n) * interval '1 minute'
         FROM unnest($5::uuid[]) WITH ORDINALITY AS m("id", n)
        ORDER BY m.n`,
      [conversationId, owner.userId, owner.tenantId, size, messageIds],
    );
    return { conversationId, messageIds };
  }

  const composerFocused = () => page.locator('#composer-text:focus').waitFor();
  const rendered = (text: string) => page.locator('[data-message-id]', { hasText: new RegExp(`^${text}$`) });

  it('opens a long conversation at its newest message with only the rows in view in the page, and loads older pages as it scrolls up', async () => {
    // A first turn through the app makes the demo user's first conversation (the owner the seed copies).
    await ask(page, 'Hello');
    await page.locator('[data-testid="answer"][data-phase="completed"]').last().waitFor({ timeout: 20_000 });
    const { conversationId } = await seedConversation(LONG);

    await page.goto(`${base}/c/${conversationId}`);
    await rendered(`Message number ${LONG}`).waitFor();
    // Virtualized: a few dozen rows at most, not the 100 of the page it loaded.
    expect(await page.locator('.message-row').count()).toBeLessThan(40);
    expect(await page.locator('.messages').getAttribute('aria-busy')).toBe('false');

    // Scroll to the top until the first message is there: each approach of the top asks for the next page.
    const log = page.locator('.messages');
    for (let step = 0; step < 200 && (await rendered('Message number 1').count()) === 0; step++) {
      await log.evaluate((element) => (element.scrollTop = 0));
      await page.waitForTimeout(50);
    }
    expect(await rendered('Message number 1').count()).toBe(1);
    // Every message once: the rows in view are consecutive and none repeats.
    const numbers = await page
      .locator('.message-row [data-message-id]')
      .evaluateAll((rows) => rows.map((row) => Number(/(\d+)$/.exec(row.textContent ?? '')?.[1])));
    expect(numbers[0]).toBe(1);
    expect(numbers).toEqual(numbers.map((_, i) => i + 1));
  });

  it('opens a message of an older page at the message (a search result link), loading the pages before it', async () => {
    const { conversationId, messageIds } = await seedConversation(LONG);
    const target = messageIds[10];
    await page.goto(`${base}/c/${conversationId}?m=${target}`);
    const found = page.locator(`[data-message-id="${target}"]`);
    await found.waitFor({ timeout: 15_000 });
    await page.locator(`[data-message-id="${target}"]:focus`).waitFor();
    expect(await found.textContent()).toBe('Message number 11');
    // In view: inside the log's visible box.
    const [box, view] = await Promise.all([found.boundingBox(), page.locator('.messages').boundingBox()]);
    expect(box && view && box.y >= view.y && box.y + box.height <= view.y + view.height).toBe(true);
  });

  it('previews an attached image before it is sent, and names the file on the message', async () => {
    await page.goto(`${base}/`);
    await page.getByLabel('Message', { exact: true }).waitFor();
    await page.locator('input[type="file"]').setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: PNG });
    const preview = page.locator('.attachment-preview');
    await preview.waitFor();
    expect(await preview.evaluate((image) => (image as unknown as { naturalWidth: number }).naturalWidth)).toBe(2);
    await page.locator('.attachment[data-state="uploaded"]').waitFor();
    await ask(page, 'What is in this picture?');
    await page.locator('[data-testid="answer"][data-phase="completed"]').last().waitFor({ timeout: 20_000 });
    expect(await page.locator('.question').last().locator('.message-file').allTextContents()).toEqual(['dot.png']);
  });

  it('attaches a file dropped on the composer and one pasted into the message box, each uploaded and sent with the message', async () => {
    await page.goto(`${base}/`);
    await page.getByLabel('Message', { exact: true }).waitFor();
    // A drop and a paste as the browser delivers them: events that carry a DataTransfer with a File.
    const transfer = (name: string, text: string) =>
      page.evaluateHandle(
        ([fileName, content]) => {
          const data = new DataTransfer();
          data.items.add(new File([content], fileName, { type: 'text/plain' }));
          return data;
        },
        [name, text] as const,
      );
    await page.locator('form.composer').dispatchEvent('drop', { dataTransfer: await transfer('dropped.txt', 'one') });
    const pasted = await transfer('pasted.txt', 'two');
    await page.getByLabel('Message', { exact: true }).evaluate((box, data) => {
      box.dispatchEvent(
        new ClipboardEvent('paste', {
          clipboardData: data as PageDataTransfer,
          bubbles: true,
          cancelable: true,
        }) as Event,
      );
    }, pasted);
    await page.locator('.attachment[data-state="uploaded"]').nth(1).waitFor();
    expect(await page.locator('.attachment .attachment-name').allTextContents()).toEqual(['dropped.txt', 'pasted.txt']);

    const request = page.waitForRequest((r) => r.url().endsWith('/api/v1/chat/completions') && r.method() === 'POST');
    await ask(page, 'Two files');
    const body = (await request).postDataJSON() as { messages: { content: { type: string; fileId?: string }[] }[] };
    expect(body.messages[0].content.map((part) => part.type)).toEqual(['text', 'input_file', 'input_file']);
    expect(
      body.messages[0].content.every((part) => part.type === 'text' || /^[0-9a-f-]{36}$/.test(part.fileId ?? '')),
    ).toBe(true);
    await page.locator('[data-testid="answer"][data-phase="completed"]').last().waitFor({ timeout: 20_000 });
  });

  it('picks a prompt template and a file from the library: the template starts the message, the file goes as input_file filepath', async () => {
    await page.goto(`${base}/`);
    await page.getByLabel('Message', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Library' }).click();
    const dialog = page.getByRole('dialog', { name: 'Library' });
    await dialog.getByRole('button', { name: /Summarize a document/ }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(await page.getByLabel('Message', { exact: true }).inputValue()).toMatch(/^Summarize the attached document/);
    await composerFocused();

    await page.getByRole('button', { name: 'Library' }).click();
    await dialog.getByRole('button', { name: /House style/ }).click();
    expect(await page.getByRole('list', { name: 'From the library' }).textContent()).toContain('guides/house-style.md');

    const request = page.waitForRequest((r) => r.url().endsWith('/api/v1/chat/completions') && r.method() === 'POST');
    await page.getByLabel('Message', { exact: true }).press('Enter');
    const body = (await request).postDataJSON() as { messages: { content: unknown }[] };
    expect(body.messages[0].content).toEqual([
      { type: 'text', text: expect.stringMatching(/^Summarize the attached document/) },
      { type: 'input_file', filepath: 'guides/house-style.md' },
    ]);
    await page.locator('[data-testid="answer"][data-phase="completed"]').last().waitFor({ timeout: 20_000 });
    // The picks were for that message only.
    expect(await page.getByRole('list', { name: 'From the library' }).count()).toBe(0);

    // Escape closes the dialog and puts focus back in the composer.
    await page.getByRole('button', { name: 'Library' }).click();
    await dialog.waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await composerFocused();
  });
});
