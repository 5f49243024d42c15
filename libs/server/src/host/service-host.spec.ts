import 'reflect-metadata';
import { Body, Controller, Get, Module, Post } from '@nestjs/common';
import { Public } from '@fed/auth';
import { type AppConfig, type ServiceConfig, loadConfig, testServiceUrls } from '@fed/config';
import { ApiError } from '@fed/contracts';
import { createLogger } from '@fed/observability';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { BLOB_STORE, type BlobStore } from '@fed/storage';
import { TcpProxy, deleteRedisKeys } from '@fed/testing';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { type RunningService, createServiceApp } from './create-service-app';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

@Controller('test')
class ProbeController {
  @Public()
  @Get('archived')
  archived() {
    throw new ApiError('conversation_archived', 'the conversation is archived');
  }

  @Public()
  @Get('crash')
  crash() {
    throw new Error('secret internal detail');
  }

  @Public()
  @Post('echo')
  echo(@Body() body: unknown) {
    return body;
  }

  @Public()
  @Get('slow')
  async slow() {
    await sleep(700);
    return { done: true };
  }

  @Get('private')
  private() {
    return { secret: true };
  }
}

@Module({ controllers: [ProbeController] })
class ProbeModule {}

// One key prefix for the whole file, removed from Redis at the end.
const keyPrefix = `test:${randomUUID().slice(0, 8)}:`;
afterAll(() => deleteRedisKeys(testServiceUrls().redisUrl, keyPrefix));
// The blob directory of every app booted here (not the services' default under /var/lib).
const blobRoot = mkdtempSync(path.join(tmpdir(), 'fed-host-blobs-'));
afterAll(() => rm(blobRoot, { recursive: true, force: true }));

function configFor(
  databaseUrl: string,
  redisUrl: string,
  overrides: Partial<ServiceConfig['http']> = {},
): AppConfig<'chat-service'> {
  const config = loadConfig('chat-service', {
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    REDIS_KEY_PREFIX: keyPrefix,
    AUTH_JWKS_URL: 'http://127.0.0.1:1/jwks',
    BLOB_DIR: path.join(blobRoot, 'blobs'),
  });
  return { ...config, http: { ...config.http, host: '127.0.0.1', port: 0, shutdownTimeoutMs: 3000, ...overrides } };
}

function capturingLogger() {
  const stream = new PassThrough();
  const lines: Record<string, unknown>[] = [];
  stream.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n').filter(Boolean))
      lines.push(JSON.parse(line) as Record<string, unknown>);
  });
  return { logger: createLogger({ service: 'chat-service', level: 'info', destination: stream }), lines };
}

describe('the service host (real PostgreSQL and Redis)', () => {
  let database: TestDatabase;
  let service: RunningService;
  let lines: Record<string, unknown>[];

  beforeAll(async () => {
    database = await createTestDatabase();
    const captured = capturingLogger();
    lines = captured.lines;
    service = await createServiceApp({
      app: 'chat-service',
      features: [ProbeModule],
      config: configFor(database.url, testServiceUrls().redisUrl),
      logger: captured.logger,
    });
  });

  afterAll(async () => {
    await service?.shutdown('test end');
    await database?.drop();
  });

  it('answers liveness with 200', async () => {
    const res = await fetch(`${service.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('answers readiness with 200 when PostgreSQL and Redis answer', async () => {
    const res = await fetch(`${service.url}/readyz`);
    const body = (await res.json()) as { status: string; checks: Record<string, { status: string }> };
    expect(res.status).toBe(200);
    expect(body.status).toBe('ok');
    expect(body.checks.postgres?.status).toBe('ok');
    expect(body.checks.redis?.status).toBe('ok');
  });

  it('renders a known error in the spec envelope with its status', async () => {
    const res = await fetch(`${service.url}/test/archived`);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: { type: 'invalid_request_error', code: 'conversation_archived', message: 'the conversation is archived' },
    });
  });

  it('turns an unknown error into a 500 with an errorId and no internals, and logs the stack', async () => {
    const res = await fetch(`${service.url}/test/crash`);
    const text = await res.text();
    expect(res.status).toBe(500);
    expect(text).not.toContain('secret internal detail');
    const body = JSON.parse(text) as { error: { code: string; errorId: string } };
    expect(body.error.code).toBe('internal_error');
    expect(body.error.errorId).toMatch(/^[0-9a-f-]{36}$/);
    await sleep(50);
    const logged = lines.find((l) => l.errorId === body.error.errorId);
    expect(JSON.stringify(logged?.err)).toContain('secret internal detail');
  });

  it('answers an unknown path with 404 not_found in the envelope', async () => {
    const res = await fetch(`${service.url}/api/v1/nothing-here`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('not_found');
  });

  it('refuses malformed JSON with 400 invalid_json and an oversized body with 413', async () => {
    const bad = await fetch(`${service.url}/test/echo`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"a":',
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe('invalid_json');

    const big = await fetch(`${service.url}/test/echo`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ text: 'x'.repeat(3 * 1024 * 1024) }),
    });
    expect(big.status).toBe(413);
    expect(((await big.json()) as { error: { code: string } }).error.code).toBe('payload_too_large');
  });

  it('refuses deeply nested JSON within the size limit with 400, not a 500 or a stall', async () => {
    const res = await fetch(`${service.url}/test/echo`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '['.repeat(1_900_000),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_json');
  });

  it('refuses a protected route without a token with 401', async () => {
    const res = await fetch(`${service.url}/test/private`);
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_token');
  });

  it('echoes a safe X-Request-Id, replaces an unsafe one, and logs the request under it', async () => {
    const kept = await fetch(`${service.url}/test/archived`, { headers: { 'X-Request-Id': 'trace-abc.123' } });
    expect(kept.headers.get('x-request-id')).toBe('trace-abc.123');
    const replaced = await fetch(`${service.url}/test/archived`, { headers: { 'X-Request-Id': 'bad id <script>' } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    await sleep(50);
    expect(
      lines.some((l) => l.requestId === 'trace-abc.123' && (l.res as { statusCode?: number })?.statusCode === 400),
    ).toBe(true);
  });

  it('logs a request without the values of its query (tokens and codes ride in queries)', async () => {
    await fetch(`${service.url}/test/archived?token=s3cret-link-token&limit=5`, {
      headers: { 'X-Request-Id': 'query-redaction' },
    });
    await sleep(50);
    const logged = lines.filter((l) => l.requestId === 'query-redaction');
    expect(logged.length).toBeGreaterThan(0);
    expect(JSON.stringify(logged)).not.toContain('s3cret-link-token');
    expect(JSON.stringify(logged)).toContain('token=[redacted]&limit=5');
  });

  it('sends headers that keep API answers from being framed or sniffed', async () => {
    const res = await fetch(`${service.url}/test/archived`);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-powered-by')).toBeNull();
  });

  it('keeps an idle keep-alive connection longer than the proxies in front keep theirs (60 s)', async () => {
    const res = await fetch(`${service.url}/test/archived`);
    await res.text();
    expect(res.headers.get('keep-alive')).toBe('timeout=65');
  });

  it('exposes Prometheus metrics labelled by route template', async () => {
    await fetch(`${service.url}/test/archived`);
    const res = await fetch(`${service.url}/metrics`);
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    expect(text).toMatch(/http_request_duration_seconds_count\{[^}]*route="\/test\/archived"[^}]*status_code="400"/);
    expect(text).toContain('process_cpu_user_seconds_total');
  });
});

describe('graceful shutdown', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('lets an open request finish, then refuses new connections', async () => {
    const service = await createServiceApp({
      app: 'chat-service',
      features: [ProbeModule],
      config: configFor(database.url, testServiceUrls().redisUrl),
      logger: capturingLogger().logger,
    });
    const pending = fetch(`${service.url}/test/slow`);
    await sleep(150);
    const stopping = service.shutdown('test');
    const res = await pending;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ done: true });
    await stopping;
    await expect(fetch(`${service.url}/healthz`)).rejects.toThrow();
  });

  it('closes requests still open when the drain timeout is reached', async () => {
    const service = await createServiceApp({
      app: 'chat-service',
      features: [ProbeModule],
      config: configFor(database.url, testServiceUrls().redisUrl, { shutdownTimeoutMs: 200 }),
      logger: capturingLogger().logger,
    });
    const pending = fetch(`${service.url}/test/slow`).then(
      (r) => r.status,
      () => 'closed',
    );
    await sleep(100);
    const started = Date.now();
    await service.shutdown('test');
    expect(Date.now() - started).toBeLessThan(2000);
    expect(await pending).toBe('closed');
  });
});

describe('without Redis', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('refuses to start when Redis is not reachable, naming where it looked', async () => {
    await expect(
      createServiceApp({
        app: 'chat-service',
        features: [ProbeModule],
        config: configFor(database.url, 'redis://:hunter2@127.0.0.1:1'),
        logger: capturingLogger().logger,
      }),
    ).rejects.toThrow(/Redis at 127\.0\.0\.1:1 is not reachable/);
  });

  it('answers readiness with 503 naming Redis when Redis is lost after start, while liveness stays 200', async () => {
    const proxy = await TcpProxy.start(testServiceUrls().redisUrl);
    const service = await createServiceApp({
      app: 'chat-service',
      features: [ProbeModule],
      config: configFor(database.url, proxy.urlFor(testServiceUrls().redisUrl)),
      logger: capturingLogger().logger,
    });
    try {
      expect((await fetch(`${service.url}/readyz`)).status).toBe(200);
      await proxy.cut();
      const res = await fetch(`${service.url}/readyz`);
      const body = (await res.json()) as { status: string; checks: Record<string, { status: string }> };
      expect(res.status).toBe(503);
      expect(body.status).toBe('unavailable');
      expect(body.checks.redis?.status).toBe('failing');
      expect(body.checks.postgres?.status).toBe('ok');
      expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
    } finally {
      await service.shutdown('test');
      await proxy.close();
    }
  });
});

describe('the blob store', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database?.drop());

  it("provides the BlobStore of the app's configuration, its directory made at start", async () => {
    const config = configFor(database.url, testServiceUrls().redisUrl);
    const dir = path.join(blobRoot, 'made-at-start');
    const service = await createServiceApp({
      app: 'chat-service',
      features: [ProbeModule],
      config: { ...config, storage: { ...config.storage, dir } },
      logger: createLogger({ service: 'chat-service', level: 'silent' }),
    });
    try {
      expect((await stat(dir)).mode & 0o777).toBe(0o700);
      const store = service.nest.get<BlobStore>(BLOB_STORE);
      await store.put('uploads/one', Readable.from([Buffer.from('bytes')]));
      expect(await store.stat('uploads/one')).toMatchObject({ bytes: 5 });
      expect((await stat(path.join(dir, 'uploads', 'one'))).size).toBe(5);
    } finally {
      await service.shutdown('test');
    }
  });

  it('refuses to start when the blob directory cannot be made', async () => {
    const file = path.join(blobRoot, 'a-file');
    writeFileSync(file, 'not a directory');
    const config = configFor(database.url, testServiceUrls().redisUrl);
    await expect(
      createServiceApp({
        app: 'chat-service',
        features: [ProbeModule],
        config: { ...config, storage: { ...config.storage, dir: path.join(file, 'blobs') } },
        logger: createLogger({ service: 'chat-service', level: 'silent' }),
      }),
    ).rejects.toThrow(/ENOTDIR|EEXIST/);
  });

  it('provides no BlobStore to an app that keeps no files', async () => {
    const config = loadConfig('llm-gateway', {
      DATABASE_URL: database.url,
      REDIS_URL: testServiceUrls().redisUrl,
      REDIS_KEY_PREFIX: keyPrefix,
      AUTH_JWKS_URL: 'http://127.0.0.1:1/jwks',
    });
    const service = await createServiceApp({
      app: 'llm-gateway',
      features: [ProbeModule],
      config: { ...config, http: { ...config.http, host: '127.0.0.1', port: 0 } },
      logger: createLogger({ service: 'llm-gateway', level: 'silent' }),
    });
    try {
      expect(() => service.nest.get(BLOB_STORE)).toThrow();
    } finally {
      await service.shutdown('test');
    }
  });
});
