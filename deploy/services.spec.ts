import { serviceNames, testServiceUrls } from '@fed/config';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { type ProcessHandle, buildDist, cleanEnv, deleteRedisKeys, freePort, startProcess } from '@fed/testing';
import { randomBytes, randomUUID } from 'node:crypto';

// Distributed mode: each deployable started exactly as its container starts it
// (`node dist/apps/<app>/src/main.js`), against the machine's PostgreSQL and Redis.
// Not web-service: it reads no PostgreSQL or Redis and serves no /metrics, so these checks do not
// apply; apps/web-service/src/web-service.spec.ts starts it the same way (probes, SIGTERM).
const keyPrefix = `test:${randomUUID().slice(0, 8)}:`;

describe.each(serviceNames)('%s as its own process', (app) => {
  let database: TestDatabase;
  let service: ProcessHandle;
  let url: string;

  beforeAll(async () => {
    buildDist();
    database = await createTestDatabase();
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    service = startProcess(
      `dist/apps/${app}/src/main.js`,
      [],
      cleanEnv({
        DATABASE_URL: database.url,
        REDIS_URL: testServiceUrls().redisUrl,
        REDIS_KEY_PREFIX: keyPrefix,
        HOST: '127.0.0.1',
        PORT: String(port),
        LOG_LEVEL: 'info',
        SHUTDOWN_TIMEOUT_SECONDS: '5',
        KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      }),
    );
    await service.waitForOutput(/"msg":"[a-z-]+ listening"/, 60_000);
  }, 90_000);

  afterAll(async () => {
    service?.child.kill('SIGKILL');
    await database?.drop();
    await deleteRedisKeys(testServiceUrls().redisUrl, keyPrefix);
  });

  it('answers /healthz and /readyz (PostgreSQL and Redis) with 200', async () => {
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${url}/readyz`);
    const body = (await ready.json()) as { checks: Record<string, { status: string }> };
    expect(ready.status).toBe(200);
    expect(body.checks.postgres?.status).toBe('ok');
    expect(body.checks.redis?.status).toBe('ok');
  });

  it('exposes Prometheus metrics labelled with its name', async () => {
    const text = await (await fetch(`${url}/metrics`)).text();
    expect(text).toContain(`service="${app}"`);
  });

  it('logs JSON lines carrying the service name', () => {
    const lines = service
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { service?: string });
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((line) => line.service === app)).toBe(true);
  });

  it('drains and exits 0 on SIGTERM', async () => {
    service.child.kill('SIGTERM');
    expect(await service.exited(30_000)).toBe(0);
    expect(service.output()).toMatch(/"msg":"stopped"/);
  }, 40_000);
});
