import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { type ProcessHandle, buildDist, cleanEnv, freePort, startProcess } from '@fed/testing';

const main = 'dist/apps/platform/src/main.js';

/** Every entry under `dir` (itself included) that is not owner-only, as "mode path"; links are not followed. */
function notOwnerOnly(dir: string): string[] {
  const info = lstatSync(dir);
  if (info.isSymbolicLink()) return [];
  const mode = info.mode & 0o777;
  const found = mode === (info.isDirectory() ? 0o700 : 0o600) ? [] : [`${mode.toString(8)} ${dir}`];
  if (!info.isDirectory()) return found;
  return [...found, ...readdirSync(dir).flatMap((name) => notOwnerOnly(path.join(dir, name)))];
}

function makeWorldReadable(dir: string): void {
  const info = lstatSync(dir);
  if (info.isSymbolicLink()) return;
  chmodSync(dir, info.isDirectory() ? 0o777 : 0o666);
  if (info.isDirectory()) for (const name of readdirSync(dir)) makeWorldReadable(path.join(dir, name));
}

// The all-in-one platform as `npm start` runs it: DATA_DIR holds chat text, password hashes and e-mail addresses.
describe('the all-in-one platform keeps DATA_DIR readable and writable by its owner only', () => {
  let parent: string;
  let dataDir: string;
  let port: number;
  let platform: ProcessHandle | undefined;

  beforeAll(async () => {
    buildDist();
    parent = mkdtempSync(path.join(os.tmpdir(), 'fed-platform-modes-'));
    dataDir = path.join(parent, 'data');
    port = await freePort();
  }, 60_000);

  afterAll(() => {
    platform?.child.kill('SIGKILL');
    rmSync(parent, { recursive: true, force: true });
  });

  const start = async () => {
    platform = startProcess(main, [], cleanEnv({ PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'info' }));
    await platform.waitForOutput(/Press Ctrl-C to stop/, 60_000);
    return platform;
  };

  const stop = async () => {
    platform!.child.kill('SIGTERM');
    expect(await platform!.exited(30_000)).toBe(0);
    platform = undefined;
  };

  // Rows written while it runs: the gateway's log of a model call, through the official client.
  const callModel = async (output: string) => {
    const key = /Model gateway key: (fed_\S+)/.exec(output)?.[1] as string;
    const openai = new OpenAI({ baseURL: `http://127.0.0.1:${port}/llm/v1`, apiKey: key, maxRetries: 0 });
    const completion = await openai.chat.completions.create({
      model: 'demo',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(completion.choices[0]?.message.content).toMatch(/demo model/);
  };

  it('creates a fresh DATA_DIR with every directory 0700 and every file 0600, also files written while it runs', async () => {
    const first = await start();
    await callModel(first.output());
    expect(notOwnerOnly(dataDir)).toEqual([]);
    await stop();
    expect(notOwnerOnly(dataDir)).toEqual([]);
  }, 120_000);

  it('fixes the modes of an existing world-readable DATA_DIR at its next start', async () => {
    mkdirSync(path.join(dataDir, 'blobs', 'files'), { recursive: true });
    writeFileSync(path.join(dataDir, 'blobs', 'files', 'upload'), 'bytes');
    makeWorldReadable(dataDir);
    expect(notOwnerOnly(dataDir).length).toBeGreaterThan(100);
    await start();
    expect(notOwnerOnly(dataDir)).toEqual([]);
    await stop();
    expect(notOwnerOnly(dataDir)).toEqual([]);
  }, 120_000);
});
