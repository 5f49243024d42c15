import 'reflect-metadata';
import { GatewayUsageService, LogRetentionJob } from '@fed/audit';
import { apiKeysServiceFor } from '@fed/gateway';
import { ClientsService } from '@fed/identity';
import { type RunningService } from '@fed/server';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import { type AdminStack, bootAdminStack, call } from './testing/boot-admin-stack';
import { bootGateway } from './testing/boot-gateway';
import { operatorToken } from './testing/operator-token';

const USAGE = '/api/v1/admin/gateway-usage';
const MAY = '?from=2026-05-01&to=2026-05-03';
/** Every management scope but the two this route takes. */
const OTHER_MANAGEMENT_SCOPES = ['sharedmemory:query', 'users:read', 'users:manage', 'master:manage'];

interface Figures {
  requests: number;
  errors: number;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  cachedTokens: number;
  costUsd: string;
}
interface Usage {
  from: string;
  to: string;
  groupBy: string;
  tenantId: string | null;
  days: (Figures & { day: string; group: string | null })[];
  groups: (Figures & { group: string | null })[];
  totals: Figures;
}

const figures = (
  requests: number,
  errors: number,
  inputTokens: number,
  outputTokens: number,
  cachedTokens: number,
  costUsd: string,
): Figures => ({
  requests,
  errors,
  inputTokens,
  outputTokens,
  totalTokens: inputTokens + outputTokens,
  cachedTokens,
  costUsd,
});

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const DAY_MS = 86_400_000;

/**
 * Gateway usage over HTTP (issue 38), read from the day rollup the gateway log's trigger keeps. Rows go into the
 * log as the gateway's writer puts them there (and one through a real llm-gateway call); two tenants' admins, a
 * tenant's integration and the platform operator read them.
 */
describe('gateway usage (GET /api/v1/admin/gateway-usage): per UTC day and model, key or user', () => {
  let stack: AdminStack;
  let operator: string;
  let operatorLogs: string;
  let adminA: string;
  let adminB: string;
  let plainUser: string;
  let tenantA: string;
  let tenantB: string;
  const [keyA1, keyA2, keyB1] = [randomUUID(), randomUUID(), randomUUID()];

  beforeAll(async () => {
    stack = await bootAdminStack();
    tenantB = randomUUID();
    await stack.dataSource.query(
      `INSERT INTO "identity"."tenants" ("id", "name", "type", "endpoint", "enabled", "created_at")
       VALUES ($1, 'tenant-b', 'saas', 'https://b.example.com', true, now())`,
      [tenantB],
    );
    await stack.createUser('alice', { role: 'admin' });
    await stack.createUser('bob', { role: 'admin', tenantName: 'tenant-b' });
    await stack.createUser('paul');
    adminA = (await stack.signIn('alice')).accessToken;
    adminB = (await stack.signIn('bob')).accessToken;
    plainUser = (await stack.signIn('paul')).accessToken;
    operator = await operatorToken(stack.auth, ['platform:manage']);
    operatorLogs = await operatorToken(stack.auth, ['logs:read']);
    [{ id: tenantA }] = (await stack.dataSource.query(
      `SELECT "id" FROM "identity"."tenants" WHERE "id" <> $1 LIMIT 1`,
      [tenantB],
    )) as [{ id: string }];

    const row = (
      createdAt: string,
      tenantId: string | null,
      model: string | null,
      keyId: string | null,
      principal: string | null,
      success: boolean,
      tokens: [number, number, number] | null,
      costUsd: string | null,
    ) => [createdAt, tenantId, model, keyId, principal, success, ...(tokens ?? [null, null, null]), costUsd];
    const rows = [
      row('2026-04-30T23:59:59.999Z', tenantA, 'gpt-5', keyA1, 'api-key:ci', true, [7, 7, 0], '0.07'),
      row('2026-05-01T00:00:00.000Z', tenantA, 'gpt-5', keyA1, 'api-key:ci', true, [100, 50, 10], '0.10'),
      row('2026-05-01T12:00:00.000Z', tenantA, 'gpt-5', keyA1, 'api-key:ci', false, [0, 0, 0], null),
      row('2026-05-01T23:59:59.999Z', tenantA, 'claude', keyA2, 'api-key:bot', true, [200, 20, 0], '0.20'),
      row('2026-05-02T10:00:00.000Z', tenantA, 'claude', null, 'client:etl-a', true, [300, 30, 30], '0.30'),
      row('2026-05-03T10:00:00.000Z', tenantB, 'secret-model', keyB1, 'api-key:b', true, [1000, 100, 0], '1.00'),
      // A call refused before a key was read: no tenant, key or principal.
      row('2026-05-03T11:00:00.000Z', null, 'demo', null, null, false, null, null),
      row('2026-05-04T00:00:00.000Z', tenantA, 'gpt-5', keyA1, 'api-key:ci', true, [1, 1, 0], '0.01'),
    ];
    for (const values of rows) {
      await stack.dataSource.query(
        `INSERT INTO "audit"."llm_gateway_logs" ("id", "created_at", "tenant_id", "model_name", "virtual_key_id",
           "metadata", "success", "input_tokens", "output_tokens", "cached_tokens", "total_tokens", "cost_usd")
         VALUES (gen_random_uuid(), $1, $2, $3, $4, jsonb_build_object('principal', $5::text), $6, $7, $8, $9,
           $7::int + $8::int, $10)`,
        values,
      );
    }
  }, 120_000);

  afterAll(() => stack?.close());

  const usage = async (query: string, token = operator) => {
    const res = await call(stack.admin, 'GET', `${USAGE}${query}`, token);
    expect([res.status, res.body.error]).toEqual([200, undefined]);
    return res.body as unknown as Usage;
  };
  const refusal = async (query: string, token = operator) => {
    const res = await call(stack.admin, 'GET', `${USAGE}${query}`, token);
    return [res.status, res.body.error?.code];
  };

  it('sums requests, errors, tokens and exact cost per UTC day and model, per model, and in total (`to` inclusive)', async () => {
    expect(await usage(`${MAY}&groupBy=model`)).toEqual({
      from: '2026-05-01',
      to: '2026-05-03',
      groupBy: 'model',
      tenantId: null,
      days: [
        { day: '2026-05-01', group: 'claude', ...figures(1, 0, 200, 20, 0, '0.20000000') },
        { day: '2026-05-01', group: 'gpt-5', ...figures(2, 1, 100, 50, 10, '0.10000000') },
        { day: '2026-05-02', group: 'claude', ...figures(1, 0, 300, 30, 30, '0.30000000') },
        { day: '2026-05-03', group: 'demo', ...figures(1, 1, 0, 0, 0, '0.00000000') },
        { day: '2026-05-03', group: 'secret-model', ...figures(1, 0, 1000, 100, 0, '1.00000000') },
      ],
      groups: [
        { group: 'claude', ...figures(2, 0, 500, 50, 30, '0.50000000') },
        { group: 'demo', ...figures(1, 1, 0, 0, 0, '0.00000000') },
        { group: 'gpt-5', ...figures(2, 1, 100, 50, 10, '0.10000000') },
        { group: 'secret-model', ...figures(1, 0, 1000, 100, 0, '1.00000000') },
      ],
      totals: figures(6, 2, 1600, 200, 30 + 10, '1.60000000'),
    });
  });

  it('groups by key (the virtual key id; null for client tokens and calls refused before a key) and by user', async () => {
    const byKey = await usage(`${MAY}&groupBy=key`);
    expect(byKey.groups.map((group) => [group.group, group.requests])).toEqual([
      ...[
        [keyA1, 2],
        [keyA2, 1],
        [keyB1, 1],
      ].sort(([a], [b]) => (String(a) < String(b) ? -1 : 1)),
      [null, 2],
    ]);
    expect(byKey.days.filter((day) => day.day === '2026-05-01').map((day) => day.group)).toEqual([keyA1, keyA2].sort());
    const byUser = await usage(`${MAY}&groupBy=user`);
    expect(byUser.groups.map((group) => [group.group, group.requests, group.costUsd])).toEqual([
      ['api-key:b', 1, '1.00000000'],
      ['api-key:bot', 1, '0.20000000'],
      ['api-key:ci', 2, '0.10000000'],
      ['client:etl-a', 1, '0.30000000'],
      [null, 1, '0.00000000'],
    ]);
    expect(byUser.totals).toEqual(byKey.totals);
  });

  it('filters by model, key and user, alone or together', async () => {
    expect((await usage(`${MAY}&groupBy=user&model=gpt-5`)).totals).toEqual(figures(2, 1, 100, 50, 10, '0.10000000'));
    expect((await usage(`${MAY}&groupBy=model&keyId=${keyA2.toUpperCase()}`)).groups).toEqual([
      { group: 'claude', ...figures(1, 0, 200, 20, 0, '0.20000000') },
    ]);
    expect((await usage(`${MAY}&groupBy=model&user=client:etl-a`)).days).toEqual([
      { day: '2026-05-02', group: 'claude', ...figures(1, 0, 300, 30, 30, '0.30000000') },
    ]);
    expect((await usage(`${MAY}&groupBy=key&model=claude&user=api-key:bot`)).totals.requests).toBe(1);
    const none = await usage(`${MAY}&groupBy=model&model=nothing-like-it`);
    expect(none).toMatchObject({ days: [], groups: [], totals: figures(0, 0, 0, 0, 0, '0.00000000') });
  });

  it('defaults to the 30 days ending today (UTC), and `to` alone to the 30 days ending then', async () => {
    const now = Date.now();
    for (const [ago, model] of [
      [0, 'today'],
      [29, 'first-day'],
      [30, 'too-old'],
    ] as const) {
      await stack.dataSource.query(
        `INSERT INTO "audit"."llm_gateway_logs" ("id", "created_at", "model_name", "success") VALUES ($1, $2, $3, true)`,
        [randomUUID(), new Date(now - ago * DAY_MS), model],
      );
    }
    const recent = await usage('?groupBy=model');
    expect(recent).toMatchObject({ from: dayOf(now - 29 * DAY_MS), to: dayOf(now) });
    expect(recent.groups.map((group) => group.group)).toEqual(expect.arrayContaining(['today', 'first-day']));
    expect(recent.groups.map((group) => group.group)).not.toContain('too-old');
    expect(await usage('?to=2026-05-03&groupBy=model')).toMatchObject({ from: '2026-04-04', to: '2026-05-03' });
    expect((await usage('?from=2026-05-04&to=2026-05-04&groupBy=model')).totals.requests).toBe(1);
  });

  it.each([
    ['groupBy is missing', MAY],
    ['groupBy is not model, key or user', `${MAY}&groupBy=day`],
    ['from is not a date', '?from=2026-13-01&groupBy=model'],
    ['to is a day that does not exist', '?to=2026-02-30&groupBy=model'],
    ['from is after to', '?from=2026-05-03&to=2026-05-01&groupBy=model'],
    ['from is after today, with no to', `?from=${dayOf(Date.now() + 2 * DAY_MS)}&groupBy=model`],
    ['the range is over 366 days', '?from=2025-01-01&to=2026-01-02&groupBy=model'],
    ['keyId is not a UUID', `${MAY}&groupBy=key&keyId=ci`],
    ['tenantId is not a UUID', `${MAY}&groupBy=key&tenantId=acme`],
    ['model is over 200 characters', `${MAY}&groupBy=key&model=${'m'.repeat(201)}`],
    ['user is blank', `${MAY}&groupBy=key&user=`],
  ])('refuses a query whose %s: 400 invalid_parameter', async (_, query) => {
    expect(await refusal(query)).toEqual([400, 'invalid_parameter']);
  });

  it('takes a range of exactly 366 days', async () => {
    expect((await usage('?from=2025-05-03&to=2026-05-03&groupBy=model')).totals.requests).toBeGreaterThanOrEqual(7);
  });

  describe('whose usage a reader sees', () => {
    it("gives a tenant admin (logs:read) their own tenant's usage only, and its totals", async () => {
      const own = await usage(`${MAY}&groupBy=model`, adminA);
      expect(own).toMatchObject({ tenantId: tenantA, totals: figures(4, 1, 600, 100, 40, '0.60000000') });
      expect(own.groups.map((group) => group.group)).toEqual(['claude', 'gpt-5']);
      const b = await usage(`${MAY}&groupBy=user`, adminB);
      expect(b).toMatchObject({ tenantId: tenantB, totals: figures(1, 0, 1000, 100, 0, '1.00000000') });
      expect(b.groups.map((group) => group.group)).toEqual(['api-key:b']);
      // Another tenant's key, model or user filters to nothing: never its figures.
      expect((await usage(`${MAY}&groupBy=model&keyId=${keyB1}`, adminA)).totals.requests).toBe(0);
      expect((await usage(`${MAY}&groupBy=model&model=secret-model`, adminA)).groups).toEqual([]);
    });

    it("refuses a tenant admin another tenant's usage (403), and takes its own tenant's id", async () => {
      expect(await refusal(`${MAY}&groupBy=model&tenantId=${tenantB}`, adminA)).toEqual([403, 'insufficient_scope']);
      expect(await usage(`${MAY}&groupBy=model&tenantId=${tenantA.toUpperCase()}`, adminA)).toEqual(
        await usage(`${MAY}&groupBy=model`, adminA),
      );
    });

    it("gives a tenant's integration (client_credentials with logs:read) its tenant's usage", async () => {
      const token = await clientToken(['logs:read'], 'tenant-b');
      expect((await usage(`${MAY}&groupBy=model`, token)).totals.requests).toBe(1);
    });

    it('gives the operator (platform:manage, or logs:read with no tenant) every tenant, or one with tenantId', async () => {
      const all = await usage(`${MAY}&groupBy=model`);
      expect(all.totals.requests).toBe(6);
      expect(await usage(`${MAY}&groupBy=model`, operatorLogs)).toEqual(all);
      expect(await usage(`${MAY}&groupBy=model&tenantId=${tenantB}`)).toMatchObject({
        tenantId: tenantB,
        totals: figures(1, 0, 1000, 100, 0, '1.00000000'),
      });
      expect((await usage(`${MAY}&groupBy=model&tenantId=${tenantA}`, operatorLogs)).totals.requests).toBe(4);
    });

    it("gives a platform operator's user token (an admin of a tenant holding platform:manage) every tenant", async () => {
      const service = stack.admin.nest.get(GatewayUsageService);
      const report = await service.read(
        { scopes: new Set(['platform:manage']), tenant: { id: tenantA } as never },
        { from: '2026-05-01', to: '2026-05-03', groupBy: 'model' },
      );
      expect(report).toMatchObject({ tenantId: null, totals: { requests: 6, costUsd: '1.60000000' } });
    });

    it('refuses a request without a token (401), a plain user (403), and a tenant client without logs:read (403)', async () => {
      expect((await call(stack.admin, 'GET', `${USAGE}${MAY}&groupBy=model`, undefined)).status).toBe(401);
      expect(await refusal(`${MAY}&groupBy=model`, plainUser)).toEqual([403, 'insufficient_scope']);
      expect(await refusal(`${MAY}&groupBy=model`, await clientToken(OTHER_MANAGEMENT_SCOPES))).toEqual([
        403,
        'insufficient_scope',
      ]);
    });
  });

  it("keeps usage of rows the log's retention deleted: usage outlives the log", async () => {
    const old = Date.now() - 120 * DAY_MS;
    await stack.dataSource.query(
      `INSERT INTO "audit"."llm_gateway_logs" ("id", "created_at", "model_name", "success", "input_tokens", "cost_usd")
       VALUES ($1, $2, 'retired', true, 42, 0.42)`,
      [randomUUID(), new Date(old)],
    );
    const day = dayOf(old);
    const before = await usage(`?from=${day}&to=${day}&groupBy=model`);
    // GATEWAY_LOG_RETENTION_DAYS defaults to 90.
    await stack.admin.nest.get(LogRetentionJob).run();
    const [{ n }] = (await stack.dataSource.query(
      `SELECT count(*)::int AS "n" FROM "audit"."llm_gateway_logs" WHERE "model_name" = 'retired'`,
    )) as [{ n: number }];
    expect(n).toBe(0);
    expect(await usage(`?from=${day}&to=${day}&groupBy=model`)).toEqual(before);
    expect(before.totals).toMatchObject({ requests: 1, inputTokens: 42, costUsd: '0.42000000' });
  });

  it("counts a real gateway call in its key's tenant's usage, by key, as soon as the log row is written", async () => {
    const gateway: RunningService = (await bootGateway(stack.database.url)).service;
    try {
      const { apiKey, key } = await apiKeysServiceFor(gateway.nest.get(DataSource), { keyPrefix: 'fed_' }).create({
        name: 'usage-probe',
        tenantId: tenantA,
      });
      const res = await fetch(`${gateway.url}/llm/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'demo', messages: [{ role: 'user', content: 'Hello there' }] }),
      });
      expect(res.status).toBe(200);
      await res.text();
      const today = dayOf(Date.now());
      const query = `?from=${today}&to=${today}&groupBy=key&keyId=${key.id}`;
      let found: Usage | undefined;
      for (const since = Date.now(); Date.now() - since < 5000; await sleep(50)) {
        found = await usage(query, adminA);
        if (found.totals.requests > 0) break;
      }
      expect(found?.days).toEqual([
        expect.objectContaining({ day: today, group: key.id, requests: 1, errors: 0, costUsd: '0.00000000' }),
      ]);
      expect(found?.totals.inputTokens).toBeGreaterThan(0);
      expect(found?.totals.totalTokens).toBe((found?.totals.inputTokens ?? 0) + (found?.totals.outputTokens ?? 0));
      expect((await usage(query, adminB)).totals.requests).toBe(0);
      expect((await usage(`?from=${today}&to=${today}&groupBy=user&user=api-key:usage-probe`)).totals.requests).toBe(1);
    } finally {
      await gateway.shutdown('test');
    }
  });

  /** A client_credentials token of a client of `tenantName` (the default tenant) holding `scopes`. */
  async function clientToken(scopes: string[], tenantName?: string): Promise<string> {
    const clientId = `etl-${randomUUID().slice(0, 8)}`;
    const { clientSecret } = await stack.auth.nest.get(ClientsService).create({
      clientId,
      name: clientId,
      grantTypes: ['client_credentials'],
      scopes,
      ...(tenantName ? { tenantName } : {}),
    });
    const res = await fetch(`${stack.auth.url}/federation/auth/v1/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
      },
      body: new URLSearchParams({ grant_type: 'client_credentials' }),
    });
    if (res.status !== 200) throw new Error(`token: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { access_token: string }).access_token;
  }
});
