import { createDataSource, dataSourceOptions } from '@fed/persistence';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { TcpProxy } from '@fed/testing';
import { randomUUID } from 'node:crypto';
import { type DataSource } from 'typeorm';
import { GatewayLogWriter, type GatewayLogRow } from './gateway-log-writer';

function row(overrides: Partial<GatewayLogRow> = {}): GatewayLogRow {
  return {
    id: randomUUID(),
    createdAt: new Date(),
    virtualKeyId: randomUUID(),
    clientSessionId: 'session-1',
    clientAgentId: 'claude-cli/2.0',
    apiFlavor: 'messages',
    modelName: 'claude',
    resolvedModel: 'claude-sonnet-4-5',
    provider: 'anthropic',
    deployment: 'anthropic/claude-sonnet-4-5',
    tier: 'premium',
    stream: true,
    success: true,
    httpStatus: 200,
    errorType: null,
    errorCode: null,
    usageStatus: 'reported',
    latencyMs: 812,
    inputTokens: 1200,
    outputTokens: 300,
    totalTokens: 1500,
    cachedTokens: 1000,
    cacheCreationInputTokens: 100,
    reasoningTokens: 0,
    costUsd: '0.00817500',
    currency: 'USD',
    metadata: { requestId: 'r-1', attempts: 1 },
    tenantId: null,
    ...overrides,
  };
}

describe('GatewayLogWriter', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let dataSource: DataSource;

  beforeAll(async () => {
    database = await createTestDatabase();
    proxy = await TcpProxy.start(database.url);
    dataSource = await createDataSource(
      dataSourceOptions({
        url: proxy.urlFor(database.url),
        applicationName: 'log-writer-test',
        entities: [],
        poolSize: 2,
        statementTimeoutMs: 2000,
      }),
    );
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await proxy?.close();
    await database?.drop();
  });

  const count = async () =>
    Number(
      ((await database.dataSource.query('SELECT count(*) AS n FROM "audit"."llm_gateway_logs"')) as { n: string }[])[0]
        ?.n,
    );

  it('writes rows in batches with every field of the gateway log', async () => {
    const writer = new GatewayLogWriter(dataSource, { flushMs: 20 });
    const written = row();
    for (let i = 0; i < 2500; i++) writer.append(i === 0 ? written : row());
    await writer.close();
    const [stored] = (await database.dataSource.query('SELECT * FROM "audit"."llm_gateway_logs" WHERE "id" = $1', [
      written.id,
    ])) as Record<string, unknown>[];
    expect(stored).toMatchObject({
      api_flavor: 'messages',
      usage_status: 'reported',
      cached_tokens: 1000,
      cache_creation_input_tokens: 100,
      cost_usd: '0.00817500',
      metadata: { requestId: 'r-1', attempts: 1 },
    });
    expect(await count()).toBe(2500);
  });

  it('keeps rows while the database is unreachable and writes them when it is back; none lost, none twice', async () => {
    const before = await count();
    const errors: unknown[] = [];
    const writer = new GatewayLogWriter(dataSource, { flushMs: 20, onError: (error) => errors.push(error) });
    await proxy.cut();
    for (let i = 0; i < 300; i++) writer.append(row());
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(errors.length).toBeGreaterThan(0);
    expect(writer.pending).toBe(300);
    await proxy.restore();
    for (let i = 0; i < 200; i++) writer.append(row());
    await writer.close(15_000);
    expect(writer.pending).toBe(0);
    expect(await count()).toBe(before + 500);
  }, 30_000);

  it('writes a tick’s rows as one statement, and leaves rows that arrive meanwhile to the next tick', async () => {
    const before = await count();
    const statements: number[] = [];
    let duringInsert = 0;
    const counting = {
      query: async (sql: string, parameters?: unknown[]) => {
        statements.push((JSON.parse(String(parameters?.[0])) as unknown[]).length);
        // Rows of calls answered while the statement is on its way.
        for (; duringInsert < 5; duringInsert++) writer.append(row());
        return dataSource.query(sql, parameters);
      },
    };
    const writer = new GatewayLogWriter(counting, { flushMs: 60_000 });
    for (let i = 0; i < 350; i++) writer.append(row());
    await writer.flush();
    expect(statements).toEqual([350]);
    expect(writer.pending).toBe(5);
    await writer.close();
    expect(statements).toEqual([350, 5]);
    expect(await count()).toBe(before + 355);
  });

  it('retries a batch whose answer was lost without writing its rows twice', async () => {
    const before = await count();
    const statements: string[] = [];
    let loseAnswer = true;
    const forgetful = {
      query: async (sql: string, parameters?: unknown[]) => {
        statements.push(sql);
        const result = await dataSource.query(sql, parameters);
        if (loseAnswer) {
          loseAnswer = false;
          throw new Error('connection lost before the answer');
        }
        return result;
      },
    };
    const writer = new GatewayLogWriter(forgetful, { flushMs: 60_000 });
    for (let i = 0; i < 20; i++) writer.append(row());
    await writer.close();
    expect(statements).toHaveLength(2);
    expect(statements[0]).not.toContain('ON CONFLICT');
    expect(statements[1]).toContain('ON CONFLICT');
    expect(writer.pending).toBe(0);
    expect(await count()).toBe(before + 20);
  });

  it('writes on close what is still buffered, without waiting for the timer', async () => {
    const before = await count();
    const writer = new GatewayLogWriter(dataSource, { flushMs: 60_000 });
    for (let i = 0; i < 10; i++) writer.append(row());
    await writer.close();
    expect(await count()).toBe(before + 10);
  });
});
