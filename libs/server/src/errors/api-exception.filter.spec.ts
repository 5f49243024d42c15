import 'reflect-metadata';
import { Controller, Get, Module } from '@nestjs/common';
import { Public } from '@fed/auth';
import { type AppConfig, loadConfig, testServiceUrls } from '@fed/config';
import { ApiError } from '@fed/contracts';
import { createLogger } from '@fed/observability';
import { createDataSource, dataSourceOptions } from '@fed/persistence';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { TcpProxy } from '@fed/testing';
import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { DataSource } from 'typeorm';
import { type RunningService, createServiceApp } from '../host/create-service-app';
import { RETRY_AFTER_SECONDS, renderError } from './api-exception.filter';

const logger = createLogger({ service: 'chat-service', level: 'silent', destination: new PassThrough() });

/** What a request's failure is answered with, from the error the driver really threw. */
async function renderedFailureOf(work: () => Promise<unknown>) {
  const error = await work().then(
    () => {
      throw new Error('expected the work to fail');
    },
    (thrown: unknown) => thrown,
  );
  return renderError(error, logger);
}

function expectUnavailable(rendered: ReturnType<typeof renderError>): void {
  expect(rendered.status).toBe(503);
  expect(rendered.headers['Retry-After']).toBe(String(RETRY_AFTER_SECONDS));
  expect(rendered.body.error).toMatchObject({ type: 'api_error', code: 'service_unavailable' });
}

describe('the error filter: dependencies out of reach are 503, bugs stay 500 (real PostgreSQL and Redis)', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let dataSource: DataSource;

  beforeAll(async () => {
    database = await createTestDatabase();
    proxy = await TcpProxy.start(database.url);
  });

  beforeEach(async () => {
    await proxy.restore().catch(() => undefined);
    dataSource = await createDataSource(
      dataSourceOptions({
        url: proxy.urlFor(database.url),
        poolSize: 1,
        applicationName: 'fed-error-filter-test',
        connectTimeoutMs: 500,
      }),
    );
  });

  afterEach(async () => {
    await dataSource?.destroy().catch(() => undefined);
  });

  afterAll(async () => {
    await proxy?.close();
    await database?.drop();
  });

  it('answers 503 service_unavailable with Retry-After when PostgreSQL refuses connections', async () => {
    await proxy.cut();
    expectUnavailable(await renderedFailureOf(() => dataSource.query('SELECT 1')));
  });

  it('answers 503 when the connection to PostgreSQL is lost under a running query', async () => {
    // The failure is taken up before the cut: the query may fail before the cut's own promise settles.
    const failure = renderedFailureOf(() => dataSource.query('SELECT pg_sleep(5)'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    await proxy.cut();
    expectUnavailable(await failure);
  });

  it('answers 503 when PostgreSQL ends the session (57P01, as at a shutdown)', async () => {
    const [{ pid }] = (await dataSource.query('SELECT pg_backend_pid() AS pid')) as { pid: number }[];
    // Taken up at once: the session may end before pg_terminate_backend's own answer arrives, and a
    // rejection nobody listens to yet fails the test.
    const failure = renderedFailureOf(() => dataSource.query('SELECT pg_sleep(5)'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    await database.dataSource.query('SELECT pg_terminate_backend($1)', [pid]);
    expectUnavailable(await failure);
  });

  it("answers 503 when the pool's connections are all taken past the connect timeout", async () => {
    const holder = dataSource.createQueryRunner();
    await holder.connect();
    try {
      expectUnavailable(await renderedFailureOf(() => dataSource.query('SELECT 1')));
    } finally {
      await holder.release();
    }
  });

  it('answers 503 when Redis is out of reach', async () => {
    const redisProxy = await TcpProxy.start(testServiceUrls().redisUrl);
    const redis = new Redis(redisProxy.url, { maxRetriesPerRequest: 1, retryStrategy: () => 50 });
    redis.on('error', () => undefined);
    try {
      await redis.ping();
      await redisProxy.cut();
      expectUnavailable(await renderedFailureOf(() => redis.get('anything')));
    } finally {
      redis.disconnect();
      await redisProxy.close();
    }
  });

  it.each([
    ['an SQL syntax error', (source: DataSource) => source.query('SELEC 1')],
    ['a value PostgreSQL cannot read (22P02)', (source: DataSource) => source.query("SELECT 'x'::uuid")],
    ['a missing table', (source: DataSource) => source.query('SELECT * FROM no_such_table')],
  ])('keeps %s a 500 internal_error with an errorId', async (_case, work) => {
    const rendered = await renderedFailureOf(() => work(dataSource));
    expect(rendered.status).toBe(500);
    expect(rendered.headers).toEqual({});
    expect(rendered.body.error).toMatchObject({ code: 'internal_error', errorId: expect.any(String) });
  });

  it('keeps a TypeError a 500, and a unique violation a 409', async () => {
    expect(renderError(new TypeError("Cannot read properties of undefined (reading 'id')"), logger).status).toBe(500);
    await dataSource.query('CREATE TEMP TABLE unique_probe (id int PRIMARY KEY)');
    await dataSource.query('INSERT INTO unique_probe VALUES (1)');
    const rendered = await renderedFailureOf(() => dataSource.query('INSERT INTO unique_probe VALUES (1)'));
    expect(rendered).toMatchObject({ status: 409, body: { error: { code: 'conflict' } } });
  });

  it("adds Retry-After to a domain's own 503, and keeps one it set", () => {
    expect(renderError(new ApiError('service_unavailable', 'not queued'), logger).headers).toEqual({
      'Retry-After': String(RETRY_AFTER_SECONDS),
    });
    const own = new ApiError('service_unavailable', 'later', { 'Retry-After': '30' });
    expect(renderError(own, logger).headers).toEqual({ 'Retry-After': '30' });
  });
});

@Controller('probe')
class DatabaseProbeController {
  constructor(private readonly dataSource: DataSource) {}

  @Public()
  @Get('database')
  async database() {
    const [row] = (await this.dataSource.query('SELECT 1 AS one')) as { one: number }[];
    return { one: row?.one };
  }
}

@Module({ controllers: [DatabaseProbeController] })
class DatabaseProbeModule {}

describe('a service whose PostgreSQL becomes unreachable', () => {
  const keyPrefix = `test:${randomUUID().slice(0, 8)}:`;
  const blobRoot = mkdtempSync(path.join(tmpdir(), 'fed-filter-blobs-'));
  let database: TestDatabase;
  let proxy: TcpProxy;
  let service: RunningService;

  beforeAll(async () => {
    database = await createTestDatabase();
    proxy = await TcpProxy.start(database.url);
    const config: AppConfig<'chat-service'> = loadConfig('chat-service', {
      DATABASE_URL: proxy.urlFor(database.url),
      REDIS_URL: testServiceUrls().redisUrl,
      REDIS_KEY_PREFIX: keyPrefix,
      AUTH_JWKS_URL: 'http://127.0.0.1:1/jwks',
      BLOB_DIR: path.join(blobRoot, 'blobs'),
    });
    service = await createServiceApp({
      app: 'chat-service',
      features: [DatabaseProbeModule],
      config: { ...config, http: { ...config.http, host: '127.0.0.1', port: 0, shutdownTimeoutMs: 1000 } },
      logger,
    });
  });

  afterAll(async () => {
    await service?.shutdown('test end');
    await proxy?.close();
    await database?.drop();
    await rm(blobRoot, { recursive: true, force: true });
  });

  it('answers 503 service_unavailable with Retry-After in the error envelope, and 200 again once it is back', async () => {
    expect((await fetch(`${service.url}/probe/database`)).status).toBe(200);
    await proxy.cut();
    const refused = await fetch(`${service.url}/probe/database`);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe(String(RETRY_AFTER_SECONDS));
    expect(await refused.json()).toEqual({
      error: {
        type: 'api_error',
        code: 'service_unavailable',
        message: 'a service this request needs is unavailable; try again shortly',
        errorId: expect.any(String),
      },
    });
    await proxy.restore();
    let status = 0;
    for (let attempt = 0; attempt < 50 && status !== 200; attempt++) {
      status = (await fetch(`${service.url}/probe/database`)).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe(200);
  });
});
