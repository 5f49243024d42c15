import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type ProcessHandle, buildDist, cleanEnv, freePort, startProcessInTerminal } from '@fed/testing';

// `npm start` typed at a terminal: the platform sees a TTY on stdout, as a newcomer's first run does.
const main = 'dist/apps/platform/src/main.js';
const BANNER = '\nFederation agent platform (all-in-one';

/** What the terminal shows, without colours and with its CRLF line ends as LF. */
const screen = (run: ProcessHandle) =>
  run
    .output()
    .replace(/\x1b\[[0-9;]*m/g, '')
    .replaceAll('\r\n', '\n');

describe('npm start at a terminal', () => {
  let dataDir: string;
  let port: number;
  let run: ProcessHandle | undefined;
  const env = (extra: Record<string, string> = {}) =>
    cleanEnv({ PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'info', LOG_FORMAT: '', ...extra });

  beforeAll(async () => {
    buildDist();
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'fed-terminal-'));
    port = await freePort();
  }, 60_000);

  afterAll(() => {
    run?.child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('logs one short human-readable line a record, and the banner is the last thing printed', async () => {
    run = startProcessInTerminal(main, [], env());
    await run.waitForOutput(/Press Ctrl-C to stop\./, 60_000);
    // Whatever the start still had to say would be said within moments.
    await sleep(2000);
    const output = screen(run);
    const bannerAt = output.indexOf(BANNER);
    expect(bannerAt).toBeGreaterThan(0);
    const logLines = output.slice(0, bannerAt).split('\n').filter(Boolean);
    // The start's own steps, not Nest's line per module and per route (some 140).
    expect(logLines.length).toBeGreaterThan(3);
    expect(logLines.length).toBeLessThan(20);
    for (const line of logLines) expect(line).toMatch(/^\[\d\d:\d\d:\d\d\] (INFO|WARN): \S/);
    expect(logLines).toContainEqual(expect.stringMatching(/INFO: embedded PostgreSQL started \{"dataDir":/));
    expect(logLines).toContainEqual(expect.stringMatching(/INFO: \d+ migrations applied$/));
    expect(logLines).toContainEqual(expect.stringMatching(/INFO: platform listening \{"url":"http:\/\/127\.0\.0\.1:/));
    expect(output).not.toContain('"level"');
    expect(output).not.toContain('Mapped {');
    expect(output.slice(bannerAt)).toContain('Demo realm created');
    expect(output.endsWith('Press Ctrl-C to stop.\n')).toBe(true);
  }, 90_000);

  it('stops on Ctrl-C typed at the terminal, its shutdown lines in the same form', async () => {
    run!.child.stdin!.write('\x03');
    expect(await run!.exited(30_000)).toBe(0);
    const afterBanner = screen(run!).split('Press Ctrl-C to stop.\n')[1] ?? '';
    expect(afterBanner).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: stopped/m);
    expect(afterBanner).not.toContain('"level"');
  }, 40_000);

  it('writes JSON at a terminal too when asked (LOG_FORMAT=json)', async () => {
    run = startProcessInTerminal(main, [], env({ LOG_FORMAT: 'json' }));
    try {
      await run.waitForOutput(/Press Ctrl-C to stop\./, 60_000);
      const output = screen(run);
      const logLines = output.slice(0, output.indexOf(BANNER)).split('\n').filter(Boolean);
      expect(logLines.length).toBeGreaterThan(20);
      for (const line of logLines) expect(JSON.parse(line)).toMatchObject({ service: 'platform' });
      expect(logLines).toContainEqual(expect.stringContaining('"msg":"database schema up to date"'));
    } finally {
      run.child.stdin!.write('\x03');
      expect(await run.exited(30_000)).toBe(0);
    }
  }, 90_000);
});
