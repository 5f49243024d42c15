import 'reflect-metadata';
import { apiKeysServiceFor } from '@fed/gateway';
import { type RunningService } from '@fed/server';
import { DataSource } from 'typeorm';
import { bootGateway } from './testing/boot-gateway';
import { type LogsHarness, bootLogsHarness } from './testing/logs-harness';
import { operatorToken } from './testing/operator-token';

interface GatewayLogList {
  llmGatewayLogs: Record<string, unknown>[];
  total: number;
  limit: number;
  page: number;
  hasMore: boolean;
  error?: { code: string };
}

describe('gateway log (GET /v1/admin/llm-gateway-logs): one row per gateway request, newest first', () => {
  let harness: LogsHarness;
  let gateway: RunningService;
  let token: string;
  let apiKey: string;
  let keyId: string;

  beforeAll(async () => {
    harness = await bootLogsHarness();
    const booted = await bootGateway(harness.database.url);
    gateway = booted.service;
    const keys = apiKeysServiceFor(gateway.nest.get(DataSource), {
      keyPrefix: booted.keyPrefix,
    });
    const created = await keys.create({ name: 'admin-logs-test' });
    apiKey = created.apiKey;
    keyId = created.key.id;
    // The key has no tenant: its rows are the operator's (tenant scoping: log-tenants.spec.ts).
    token = await operatorToken(harness.auth, ['logs:read']);
  }, 120_000);

  afterAll(async () => {
    await gateway?.shutdown('test');
    await harness?.close();
  });

  const list = async (query: string, bearer = token) => {
    const res = await harness.get(`/api/v1/admin/llm-gateway-logs${query}`, bearer);
    return { status: res.status, body: (await res.json()) as GatewayLogList };
  };

  async function chat(sessionId: string): Promise<void> {
    const res = await fetch(`${gateway.url}/llm/v1/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${apiKey}`,
        'x-session-id': sessionId,
      },
      body: JSON.stringify({ model: 'demo', messages: [{ role: 'user', content: 'hello' }] }),
    });
    expect(res.status).toBe(200);
    await res.text();
  }

  async function waitForRows(atLeast: number): Promise<GatewayLogList> {
    const until = Date.now() + 5000;
    for (;;) {
      const { body } = await list('?limit=100');
      if (body.total >= atLeast || Date.now() > until) return body;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it('reads back the row of a gateway call with every field of the gateway log', async () => {
    const before = Date.now();
    await chat('session-1');
    const { llmGatewayLogs, total } = await waitForRows(1);
    expect(total).toBe(1);
    const row = llmGatewayLogs[0] as Record<string, unknown>;
    expect(Object.keys(row).sort()).toEqual(
      [
        'llmGatewayLogId',
        'createdAt',
        'virtualKeyId',
        'clientSessionId',
        'clientAgentId',
        'apiFlavor',
        'modelName',
        'resolvedModel',
        'provider',
        'deployment',
        'tier',
        'stream',
        'success',
        'httpStatus',
        'errorType',
        'errorCode',
        'usageStatus',
        'latencyMs',
        'inputTokens',
        'outputTokens',
        'totalTokens',
        'cachedTokens',
        'cacheCreationInputTokens',
        'reasoningTokens',
        'costUsd',
        'currency',
        'metadata',
        'tenantId',
      ].sort(),
    );
    expect(row).toMatchObject({
      llmGatewayLogId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      virtualKeyId: keyId,
      modelName: 'demo',
      stream: false,
      success: true,
      httpStatus: 200,
      errorType: null,
      errorCode: null,
      metadata: expect.any(Object),
    });
    expect(Date.parse(row.createdAt as string)).toBeGreaterThanOrEqual(before - 1000);
    for (const field of ['latencyMs', 'inputTokens', 'outputTokens', 'totalTokens']) {
      expect(typeof row[field]).toBe('number');
    }
    expect(row.totalTokens).toBe((row.inputTokens as number) + (row.outputTokens as number));
    // An exact decimal: a string that reads as a number (the spec: number or string).
    expect(Number.isFinite(Number(row.costUsd))).toBe(true);
  });

  it('lists newest first with the envelope, and filters by from and to (UTC days, to inclusive)', async () => {
    await chat('session-2');
    const { llmGatewayLogs } = await waitForRows(2);
    const [newest, older] = llmGatewayLogs;
    expect(Date.parse(newest?.createdAt as string)).toBeGreaterThanOrEqual(Date.parse(older?.createdAt as string));

    const dataSource = harness.dataSource;
    await dataSource.query(
      `INSERT INTO "audit"."llm_gateway_logs" ("id", "created_at", "model_name", "cost_usd") VALUES
       ('00000000-0000-7000-8000-000000000001', now() - interval '10 days', 'old', 0.00012345)`,
    );
    const tenDaysAgo = new Date(Date.now() - 10 * 86_400_000).toISOString().slice(0, 10);
    const today = new Date().toISOString().slice(0, 10);
    const old = await list(`?from=${tenDaysAgo}&to=${tenDaysAgo}`);
    expect(old.body).toMatchObject({ total: 1, limit: 25, page: 1, hasMore: false });
    expect(old.body.llmGatewayLogs[0]).toMatchObject({ modelName: 'old', costUsd: '0.00012345' });
    expect((await list(`?from=${today}&to=${today}`)).body.total).toBe(2);
    const paged = await list('?limit=2&page=1');
    expect(paged.body).toMatchObject({ total: 3, limit: 2, page: 1, hasMore: true });
  });

  it.each(['from=2026-13-01', 'to=2026-02-30', 'from=2026-03-02&to=2026-03-01', 'limit=0', 'page=0'])(
    'refuses bad query values with 400 (%s)',
    async (query) => {
      const { status, body } = await list(`?${query}`);
      expect(status).toBe(400);
      expect(body.error?.code).toBe('invalid_parameter');
    },
  );

  it('refuses a token without logs:read with 403', async () => {
    expect((await list('', await harness.serviceToken(['users:read']))).status).toBe(403);
  });
});
