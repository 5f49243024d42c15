import 'reflect-metadata';
import { testServiceUrls } from '@fed/config';
import { apiKeysServiceFor, gatewayEntities } from '@fed/gateway';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import {
  type ProcessHandle,
  buildDist,
  cleanEnv,
  deleteRedisKeys,
  freePort,
  parseMetrics,
  startProcess,
} from '@fed/testing';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import http from 'node:http';

const main = 'dist/apps/llm-gateway/src/main.js';

/** The processes whose parent is `pid` (Linux /proc). */
function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        // pid (comm) state ppid ...: comm may hold spaces, so read after its closing parenthesis.
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
}

const count = (text: string, pattern: RegExp) => text.match(new RegExp(pattern.source, 'g'))?.length ?? 0;

/**
 * llm-gateway with LLM_GATEWAY_WORKERS=2, as its main.js runs: a primary and two worker processes on
 * one port, on PostgreSQL and Redis.
 */
describe('llm-gateway in worker processes (LLM_GATEWAY_WORKERS)', () => {
  const redis = { url: testServiceUrls().redisUrl, keyPrefix: `test:${randomUUID().slice(0, 8)}:` };
  let database: TestDatabase;
  let apiKey: string;

  beforeAll(async () => {
    buildDist();
    database = await createTestDatabase({ entities: gatewayEntities });
    ({ apiKey } = await apiKeysServiceFor(database.dataSource, { keyPrefix: 'fed_' }).create({
      name: 'workers',
    }));
  }, 60_000);

  afterAll(async () => {
    await database?.drop();
    await deleteRedisKeys(redis.url, redis.keyPrefix);
  });

  async function startGateway(env: Record<string, string> = {}) {
    const port = await freePort();
    const gateway = startProcess(
      main,
      [],
      cleanEnv({
        DATABASE_URL: database.url,
        REDIS_URL: redis.url,
        REDIS_KEY_PREFIX: redis.keyPrefix,
        HOST: '127.0.0.1',
        PORT: String(port),
        AUTH_URL: 'http://127.0.0.1:9',
        LOG_LEVEL: 'info',
        NODE_OPTIONS: '',
        LLM_GATEWAY_WORKERS: '2',
        ...env,
      }),
    );
    return { gateway, url: `http://127.0.0.1:${port}` };
  }

  async function bothListening(gateway: ProcessHandle, listened = 2) {
    await gateway.waitForOutput(new RegExp(`(llm-gateway listening[\\s\\S]*){${listened}}`), 30_000);
  }

  /** One chat call on a connection of its own (the primary hands each new connection to the next worker). */
  function call(url: string): Promise<number> {
    const body = JSON.stringify({ model: 'demo', messages: [{ role: 'user', content: 'hello' }] });
    return new Promise((resolve, reject) => {
      const req = http.request(
        `${url}/llm/v1/chat/completions`,
        {
          method: 'POST',
          agent: false,
          headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
        },
        (res) => {
          res.resume();
          res.once('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.once('error', reject);
      req.end(body);
    });
  }

  async function stop(gateway: ProcessHandle) {
    if (gateway.child.exitCode === null) gateway.child.kill('SIGTERM');
    return gateway.exited(20_000);
  }

  it('serves one port from two processes, /metrics sums them, and a worker that dies is replaced', async () => {
    const { gateway, url } = await startGateway();
    try {
      await bothListening(gateway);
      const primary = gateway.child.pid as number;
      const workers = childrenOf(primary);
      expect(workers).toHaveLength(2);

      // Eight connections, four to each worker (round robin): every scrape, whichever worker answers, counts eight.
      expect(await Promise.all(Array.from({ length: 8 }, () => call(url)))).toEqual(Array(8).fill(200));
      for (let scrape = 0; scrape < 4; scrape++) {
        const res = await fetch(`${url}/metrics`, { headers: { connection: 'close' } });
        expect(res.status).toBe(200);
        const calls = parseMetrics(await res.text()).filter(
          (sample) =>
            sample.name === 'http_requests_total' &&
            sample.labels.route === '/llm/v1/chat/completions' &&
            sample.labels.status_code === '200',
        );
        expect(calls.map((sample) => sample.value)).toEqual([8]);
      }

      process.kill(workers[0] as number, 'SIGKILL');
      await gateway.waitForOutput(/worker exited: starting another/, 10_000);
      await bothListening(gateway, 3);
      const replaced = childrenOf(primary);
      expect(replaced).toHaveLength(2);
      expect(replaced).toContain(workers[1]);
      expect(replaced).not.toContain(workers[0]);
      expect(await Promise.all(Array.from({ length: 4 }, () => call(url)))).toEqual(Array(4).fill(200));
    } finally {
      await stop(gateway);
    }
  }, 60_000);

  it('on SIGTERM writes every worker’s buffered log rows, then every process exits 0', async () => {
    const { gateway, url } = await startGateway({ LLM_GATEWAY_LOG_FLUSH_MS: '60000' });
    try {
      await bothListening(gateway);
      const workers = childrenOf(gateway.child.pid as number);
      const before = await logRows();
      expect(await Promise.all(Array.from({ length: 10 }, () => call(url)))).toEqual(Array(10).fill(200));
      // A group-wide signal (Ctrl-C, a systemd stop) reaches the workers too: they follow the primary only.
      for (const pid of workers) process.kill(pid, 'SIGINT');
      gateway.child.kill('SIGTERM');
      expect(await gateway.exited(20_000)).toBe(0);
      expect(await logRows()).toBe(before + 10);
      for (const pid of workers) expect(existsSync(`/proc/${pid}`)).toBe(false);
      expect(count(gateway.output(), /second signal/)).toBe(0);
    } finally {
      await stop(gateway);
    }
  }, 60_000);

  it('stops cleanly when told to while its workers are still starting', async () => {
    const { gateway } = await startGateway();
    try {
      await gateway.waitForOutput(/starting worker processes/, 20_000);
      gateway.child.kill('SIGTERM');
      expect(await gateway.exited(20_000)).toBe(0);
      expect(count(gateway.output(), /"msg":"stopped"/)).toBe(2);
    } finally {
      // Its workers stop by themselves once their primary is gone.
      if (gateway.child.exitCode === null) gateway.child.kill('SIGKILL');
    }
  }, 40_000);

  it('stops, with the worker’s exit code, when a worker cannot start', async () => {
    const { gateway } = await startGateway({ DATABASE_URL: `${database.url}_missing` });
    expect(await gateway.exited(30_000)).toBe(1);
    expect(gateway.output()).toMatch(/failed to start/);
  }, 40_000);

  it('refuses a worker count out of range before starting any', async () => {
    const { gateway } = await startGateway({ LLM_GATEWAY_WORKERS: '0' });
    expect(await gateway.exited(20_000)).toBe(78);
    expect(gateway.output()).toMatch(/LLM_GATEWAY_WORKERS/);
  }, 30_000);

  async function logRows(): Promise<number> {
    const [row] = (await database.dataSource.query('SELECT count(*)::int AS n FROM "audit"."llm_gateway_logs"')) as {
      n: number;
    }[];
    return row?.n ?? 0;
  }
});
