import { type ConfigChangedV1 } from '@fed/contracts';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MemorySignals } from '../memory/memory-signals';
import { SIGNAL_RELAY_FILE, type SignalRelay, findSignalRelay, startSignalRelay } from './signal-relay';

describe('the signal relay of the in-process bus', () => {
  let dataDir: string;
  let signals: MemorySignals;
  let relay: SignalRelay;

  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'fed-relay-'));
    signals = new MemorySignals();
    relay = await startSignalRelay(signals, { dataDir });
  });

  afterEach(async () => {
    await relay.close();
    await signals.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const received = (topic: 'config.changed') =>
    new Promise<ConfigChangedV1>((resolve) => void signals.subscribe(topic, resolve));

  const post = (body: string, secret?: string) =>
    fetch(`${relay.url}/signals`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(secret ? { authorization: `Bearer ${secret}` } : {}) },
      body,
    });

  const secretOf = async () =>
    (JSON.parse(await readFile(path.join(dataDir, SIGNAL_RELAY_FILE), 'utf8')) as { secret: string }).secret;

  it('publishes what a local tool relays on the bus it serves, retained when asked', async () => {
    const tool = await findSignalRelay(dataDir);
    expect(tool?.pid).toBe(process.pid);
    const change = received('config.changed');
    await tool?.publish('config.changed', { version: 1, area: 'gateway.keys', id: 'k1' });
    expect(await change).toEqual({ version: 1, area: 'gateway.keys', id: 'k1' });

    const until = Math.floor(Date.now() / 1000) + 60;
    await tool?.publishRetained('auth.sessions-invalidated', { version: 1, subject: 'u1', issuedBefore: 5 }, until);
    expect(await signals.retained('auth.sessions-invalidated')).toEqual([
      { version: 1, subject: 'u1', issuedBefore: 5 },
    ]);
  });

  it('announces its loopback address and secret in a file only its owner may read, withdrawn on close', async () => {
    const file = path.join(dataDir, SIGNAL_RELAY_FILE);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({
      version: 1,
      pid: process.pid,
      url: relay.url,
      secret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    expect(relay.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await relay.close();
    await expect(stat(file)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await findSignalRelay(dataDir)).toBeUndefined();
  });

  it('refuses a caller without the secret, publishing nothing', async () => {
    let heard = 0;
    await signals.subscribe('config.changed', () => heard++);
    const body = JSON.stringify({ version: 1, topic: 'config.changed', payload: { version: 1, area: 'x' } });
    expect((await post(body)).status).toBe(401);
    expect((await post(body, 'not-the-secret')).status).toBe(401);
    expect((await post(body, await secretOf())).status).toBe(204);
    await new Promise((resolve) => setImmediate(resolve));
    expect(heard).toBe(1);
  });

  it('refuses an unknown topic, a payload that is no object, a bad retention and a body over 64 KiB', async () => {
    const secret = await secretOf();
    const payload = { version: 1, area: 'x' };
    for (const body of [
      { version: 1, topic: 'no.such-topic', payload },
      { version: 1, topic: 'config.changed', payload: 'text' },
      { version: 2, topic: 'config.changed', payload },
      { version: 1, topic: 'config.changed', payload, retainUntil: 'tomorrow' },
    ]) {
      expect((await post(JSON.stringify(body), secret)).status).toBe(400);
    }
    expect((await post('{ not json', secret)).status).toBe(400);
    expect((await post('x'.repeat(64 * 1024 + 1), secret)).status).toBe(413);
  });

  it('is not found through a file left by a platform that is gone', async () => {
    await relay.close();
    const { pid: deadPid } = spawnSync(process.execPath, ['-e', '']);
    await writeFile(
      path.join(dataDir, SIGNAL_RELAY_FILE),
      JSON.stringify({ version: 1, pid: deadPid, url: 'http://127.0.0.1:1', secret: 's' }),
    );
    expect(await findSignalRelay(dataDir)).toBeUndefined();
  });
});
