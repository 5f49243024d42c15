import http from 'node:http';
import { type AddressInfo } from 'node:net';
import { HeartbeatTable, heartbeatsEvery, responseHeartbeat } from './heartbeats';

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('HeartbeatTable', () => {
  it('beats a stream nobody writes to every interval, and one written to only after its silence', async () => {
    const table = new HeartbeatTable(100);
    const idle: number[] = [];
    const busy: number[] = [];
    const started = Date.now();
    const quiet = table.add(() => idle.push(Date.now() - started) > 0);
    const written = table.add(() => busy.push(Date.now() - started) > 0);
    const keepBusy = setInterval(() => (written.lastWrite = Date.now()), 20);
    await wait(550);
    clearInterval(keepBusy);
    expect(idle.length).toBeGreaterThanOrEqual(3);
    expect(idle.length).toBeLessThanOrEqual(5);
    for (let k = 1; k < idle.length; k++) expect(idle[k] - idle[k - 1]).toBeGreaterThanOrEqual(90);
    expect(busy).toHaveLength(0);
    await wait(250);
    expect(busy.length).toBeGreaterThanOrEqual(1);
    table.delete(quiet);
    expect(table.size).toBe(1);
    table.delete(written);
    expect(table.size).toBe(0);
  });

  it('tries a stream that could not take its heartbeat again at the next look', async () => {
    const table = new HeartbeatTable(50);
    let calls = 0;
    const beat = table.add(() => ++calls > 2);
    await wait(60);
    const first = beat.lastWrite;
    await wait(150);
    expect(calls).toBeGreaterThanOrEqual(3);
    expect(beat.lastWrite).toBeGreaterThan(first);
    table.delete(beat);
    expect(table.size).toBe(0);
  });

  it('is one table per interval in a process', () => {
    expect(heartbeatsEvery(1234)).toBe(heartbeatsEvery(1234));
    expect(heartbeatsEvery(1234)).not.toBe(heartbeatsEvery(4321));
    expect(() => new HeartbeatTable(0)).toThrow(RangeError);
  });
});

describe('responseHeartbeat', () => {
  it('writes its text to an open response, and nothing once the response has ended', async () => {
    let write: (() => boolean) | undefined;
    const server = http.createServer((_req, res) => {
      res.writeHead(200);
      write = responseHeartbeat(res, ': ping\n\n');
      expect(write()).toBe(true);
      res.end();
      expect(write()).toBe(false);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const body = await (await fetch(`http://127.0.0.1:${port}/`)).text();
    await new Promise((resolve) => server.close(resolve));
    expect(write).toBeDefined();
    expect(body).toBe(': ping\n\n');
  });
});
