import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import {
  type ProcessHandle,
  ScriptedUpstream,
  TcpProxy,
  buildDist,
  buildWeb,
  cleanEnv,
  freePort,
  startProcess,
} from '@fed/testing';
import { describeWithChromium, launchChromium } from '@fed/sign-in/testing';
import { type DemoCredentials } from './demo-realm';
import { scriptedModelEnv } from './testing/scripted-model';
import { textAnswer, toolCall } from './testing/model-answers';
import { ask, signInToWebApp } from './testing/web-app';

const main = 'dist/apps/platform/src/main.js';

/** The web app over answers of the scripted model provider: untrusted Markdown, slow streams, reloads, stop. */
describeWithChromium('web-app-streams-e2e.spec')('the web app with a scripted model', () => {
  let dataDir: string;
  let base: string;
  let upstream: ScriptedUpstream;
  let proxy: TcpProxy;
  let platform: ProcessHandle;
  let browser: Browser;
  let demo: DemoCredentials;

  beforeAll(async () => {
    buildDist();
    buildWeb();
    upstream = await ScriptedUpstream.start();
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'fed-web-streams-'));
    const port = await freePort();
    // The browser reaches the platform through a proxy that a test can cut, as a dropped connection.
    proxy = await TcpProxy.start(`http://127.0.0.1:${port}`);
    base = proxy.urlFor(`http://127.0.0.1:${port}`).replace(/\/$/, '');
    platform = startProcess(
      main,
      [],
      cleanEnv({
        PORT: String(port),
        PUBLIC_URL: base,
        DATA_DIR: dataDir,
        ...scriptedModelEnv(dataDir, upstream.url),
      }),
    );
    await platform.waitForOutput(/Press Ctrl-C to stop/, 60_000);
    demo = JSON.parse(readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8')) as DemoCredentials;
    browser = await launchChromium();
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    platform?.child.kill('SIGKILL');
    await upstream?.close();
    await proxy?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const signedIn = async (): Promise<Page> => (await signInToWebApp(browser, base, demo.user)).page;

  const answerText = (page: Page) => page.getByTestId('answer').last().locator('.answer-text');
  /** The last answer has ended in `phase` and shows its Markdown (not the plain text shown while the renderer loads). */
  const ended = async (page: Page, phase = 'completed') => {
    const last = page.locator(`[data-testid="answer"][data-phase="${phase}"]`).last();
    await last.waitFor({ timeout: 20_000 });
    await last.locator('.answer-text .plain-text').waitFor({ state: 'detached', timeout: 20_000 });
  };

  it('renders the model answer as Markdown without ever running or loading what it carries', async () => {
    upstream.enqueue(
      textAnswer([
        '| a | b |\n|---|---|\n| 1 | 2 |\n\n',
        '```js\nconst x = 1;\n```\n\n',
        '<img src=x onerror="window.pwned=1"> <script>window.pwned=2</script>\n\n',
        '[click](javascript:window.pwned=3) [site](https://example.com/)',
      ]),
    );
    const page = await signedIn();
    await ask(page, 'Show me markup');
    await ended(page);
    const answer = answerText(page);
    await answer.locator('table td', { hasText: '2' }).waitFor();
    expect(await answer.locator('code.language-js .hljs-keyword').first().textContent()).toBe('const');
    expect(await answer.locator('img, script').count()).toBe(0);
    expect(await answer.textContent()).toContain('<img src=x onerror="window.pwned=1">');
    expect(await answer.getByRole('link', { name: 'click' }).getAttribute('href')).toBe('');
    const site = answer.getByRole('link', { name: 'site' });
    expect(await site.getAttribute('href')).toBe('https://example.com/');
    expect(await site.getAttribute('rel')).toBe('noopener noreferrer nofollow');
    await answer.getByRole('link', { name: 'click' }).click();
    expect(await page.evaluate(() => (globalThis as unknown as { pwned?: number }).pwned)).toBeUndefined();
    await page.context().close();
  }, 60_000);

  it('resumes a reload mid-answer with nothing lost or shown twice, and a second tab follows the same turn', async () => {
    const pieces = Array.from({ length: 24 }, (_, i) => `p${i} `);
    upstream.enqueue(textAnswer(pieces, 150));
    const page = await signedIn();
    await ask(page, 'Answer slowly');
    await answer(page, 'p3 ');
    await page.waitForURL(/\/c\/[0-9a-f-]{36}$/);
    const second = await signedIn();
    await second.goto(page.url());

    await page.reload();
    await ended(page);
    await ended(second);
    expect(await answerText(page).textContent()).toBe(pieces.join('').trim());
    expect(await answerText(second).textContent()).toBe(pieces.join('').trim());
    await page.context().close();
    await second.context().close();
  }, 60_000);

  it('resumes a dropped connection with Last-Event-ID: the answer ends whole, each piece once', async () => {
    const pieces = Array.from({ length: 20 }, (_, i) => `d${i} `);
    upstream.enqueue(textAnswer(pieces, 150));
    const page = await signedIn();
    const resumes: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'GET' && /\/api\/v1\/chat\/completions\/[0-9a-f-]{36}$/.test(request.url())) {
        resumes.push(request.headers()['last-event-id'] ?? '');
      }
    });
    await ask(page, 'Answer through a drop');
    await answer(page, 'd2 ');
    await proxy.cut();
    await proxy.restore();
    await ended(page);
    expect(await answerText(page).textContent()).toBe(pieces.join('').trim());
    expect(resumes.length).toBeGreaterThan(0);
    expect(resumes[0]).toMatch(/^\d+-\d+$/);
    await page.context().close();
  }, 60_000);

  it('stops an answer with Stop: the turn ends unfinished with what was written', async () => {
    upstream.enqueue(
      textAnswer(
        Array.from({ length: 40 }, (_, i) => `s${i} `),
        200,
      ),
    );
    const page = await signedIn();
    await ask(page, 'Answer at length');
    await answer(page, 's2 ');
    await page.getByRole('button', { name: 'Stop' }).click();
    await ended(page, 'unfinished');
    expect(await page.getByTestId('answer').last().getByText('Stopped').count()).toBe(1);
    expect(await answerText(page).textContent()).not.toContain('s39');
    await page.getByRole('button', { name: 'Send' }).waitFor();
    await page.context().close();
  }, 60_000);

  it('asks for an approval, a choice and an answer; each is given by clicking, as the next message of the same conversation', async () => {
    upstream.reset();
    upstream.enqueue(
      toolCall('call-confirm', 'ask_user', {
        interactionType: 'confirmation',
        content: 'Send the quarterly report to finance@example.com?',
        options: ['Send it', 'Not now'],
      }),
    );
    const page = await signedIn();
    const sent: { text: string; conversationId?: string }[] = [];
    page.on('request', (request) => {
      if (request.method() !== 'POST' || !request.url().endsWith('/api/v1/chat/completions')) return;
      const body = request.postDataJSON() as { conversationId?: string; messages: { content: string }[] };
      sent.push({ text: body.messages[0].content, conversationId: body.conversationId });
    });
    const request = (name: string) => page.getByRole('region', { name }).last();
    await ask(page, 'Send the report');

    // What is being approved is said in the request itself, with the labels the agent gave.
    const approval = request('The agent asks for your approval before it goes on');
    await approval.getByText('Send the quarterly report to finance@example.com?').waitFor({ timeout: 20_000 });
    expect(await approval.getByRole('button').allTextContents()).toEqual(['Send it', 'Not now']);
    upstream.enqueue(
      toolCall('call-choice', 'ask_user', {
        interactionType: 'choice',
        content: 'Which format?',
        options: ['PDF', 'Spreadsheet'],
      }),
    );
    await approval.getByRole('button', { name: 'Send it' }).click();

    const choice = request('The agent asks you to choose');
    await choice.getByText('Which format?').waitFor({ timeout: 20_000 });
    // An answered request stays on the page, closed.
    expect(await approval.getByRole('button', { name: 'Send it' }).isDisabled()).toBe(true);
    upstream.enqueue(
      toolCall('call-question', 'ask_user', { interactionType: 'question', content: 'Who should be copied?' }),
    );
    await choice.getByRole('button', { name: 'PDF' }).click();

    const question = request('The agent has a question');
    await question.getByText('Who should be copied?').waitFor({ timeout: 20_000 });
    upstream.enqueue(textAnswer(['Sent as PDF, ', 'copying Dana.']));
    await question.getByLabel('Your answer').fill('Dana');
    await question.getByRole('button', { name: 'Answer' }).click();
    await answer(page, 'copying Dana.');
    await ended(page);

    const conversationId = /\/c\/([0-9a-f-]{36})$/.exec(page.url())?.[1];
    expect(sent).toEqual([
      { text: 'Send the report' },
      { text: 'Send it', conversationId },
      { text: 'PDF', conversationId },
      { text: 'Dana', conversationId },
    ]);
    // The model got each answer as the result of the ask_user call that asked.
    const answered = upstream.requests.slice(1).map((r) => {
      const messages = (r.json as { messages: { role: string; tool_call_id?: string; content: unknown }[] }).messages;
      const result = messages.filter((m) => m.role === 'tool').at(-1);
      return [result?.tool_call_id, result?.content];
    });
    expect(answered).toEqual([
      ['call-confirm', 'Send it'],
      ['call-choice', 'PDF'],
      ['call-question', 'Dana'],
    ]);
    await page.context().close();
  }, 90_000);

  async function answer(page: Page, shown: string): Promise<void> {
    await answerText(page).getByText(shown, { exact: false }).first().waitFor({ timeout: 20_000 });
  }
});
