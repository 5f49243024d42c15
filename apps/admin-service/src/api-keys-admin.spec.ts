import 'reflect-metadata';
import { AuditTrail } from '@fed/audit';
import { ClientsService } from '@fed/identity';
import { type RunningService } from '@fed/server';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { type AdminStack, bootAdminStack, call } from './testing/boot-admin-stack';
import { bootGateway } from './testing/boot-gateway';
import { operatorToken } from './testing/operator-token';

const KEYS = '/api/v1/admin/api-keys';
/** Every management scope but the operator's. */
const OTHER_MANAGEMENT_SCOPES = ['sharedmemory:query', 'users:read', 'users:manage', 'logs:read', 'master:manage'];

interface KeyBody {
  keyId: string;
  name: string;
  keyHint: string;
  state: string;
  models: string[] | null;
  rpm: number | null;
  tpm: number | null;
  dailyBudgetUsd: number | null;
  networks: string[] | null;
  tenantId: string | null;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  apiKey?: string;
}

/**
 * The gateway's virtual keys over HTTP (issue 38), the same ApiKeysService as `platformctl apikeys`: auth-, admin-
 * and chat-service on Redis, and an llm-gateway on the same Redis and database, which must hear of every change.
 */
describe('gateway API keys (/api/v1/admin/api-keys, platform:manage)', () => {
  let stack: AdminStack;
  let gateway: RunningService;
  let operator: string;
  let tenantAdmin: string;
  let plainUser: string;
  let tenantClient: string;
  let tenantId: string;

  beforeAll(async () => {
    stack = await bootAdminStack();
    operator = await operatorToken(stack.auth, ['platform:manage']);
    await stack.createUser('alice', { role: 'admin' });
    tenantAdmin = (await stack.signIn('alice')).accessToken;
    await stack.createUser('paul');
    plainUser = (await stack.signIn('paul')).accessToken;
    tenantClient = await clientToken(OTHER_MANAGEMENT_SCOPES);
    [{ id: tenantId }] = (await stack.dataSource.query(`SELECT "id" FROM "identity"."tenants" LIMIT 1`)) as [
      { id: string },
    ];
    const { url, keyPrefix } = stack.admin.config.redis;
    gateway = (await bootGateway(stack.database.url, {}, { url, keyPrefix })).service;
  }, 120_000);

  afterAll(async () => {
    await gateway?.shutdown('test');
    await stack?.close();
  });

  /** A client_credentials token of a client of the default tenant holding `scopes`. */
  async function clientToken(scopes: string[]): Promise<string> {
    const clientId = `etl-${randomUUID().slice(0, 8)}`;
    const { clientSecret } = await stack.auth.nest.get(ClientsService).create({
      clientId,
      name: clientId,
      grantTypes: ['client_credentials'],
      scopes,
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

  const api = (method: string, path: string, body?: unknown, token = operator) =>
    call(stack.admin, method, `${KEYS}${path}`, token, body);
  const create = async (body: Record<string, unknown>) => {
    const res = await api('POST', '', body);
    expect(res.status).toBe(201);
    return res.body as unknown as KeyBody;
  };
  /** The gateway's answer to a chat completion with `apiKey`. */
  const complete = async (apiKey: string, model = 'demo') => {
    const res = await fetch(`${gateway.url}/llm/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Hi' }] }),
    });
    await res.text();
    return res.status;
  };
  /** How long until the gateway answers `status` (Infinity: not within 3 s). */
  async function until(status: number, answer: () => Promise<number>): Promise<number> {
    const since = Date.now();
    while (Date.now() - since < 3000) {
      if ((await answer()) === status) return Date.now() - since;
      await sleep(20);
    }
    return Number.POSITIVE_INFINITY;
  }
  const auditRows = async (resource: string) => {
    await stack.admin.nest.get(AuditTrail).flush();
    return (await stack.dataSource.query(
      `SELECT "action", "meta", "tenant_id" AS "tenantId" FROM "audit"."audit_logs" WHERE "resource" = $1 ORDER BY "created_at"`,
      [resource],
    )) as { action: string; meta: Record<string, unknown>; tenantId: string | null }[];
  };

  describe('POST /api/v1/admin/api-keys', () => {
    it('creates a key, shows it once (201), and a running gateway accepts it', async () => {
      const created = await create({ name: 'ci-bot' });
      expect(created).toMatchObject({
        keyId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        name: 'ci-bot',
        state: 'live',
        models: null,
        rpm: null,
        tpm: null,
        dailyBudgetUsd: null,
        networks: null,
        tenantId: null,
        expiresAt: null,
        revokedAt: null,
        apiKey: expect.stringMatching(/^fed_[A-Za-z0-9_-]{43}$/),
      });
      expect(created.keyHint).toBe(`fed_...${created.apiKey?.slice(-4)}`);
      expect(await complete(created.apiKey as string)).toBe(200);
      // Never again: not in its read, not in the list, not in the database, not in the audit trail.
      const read = await api('GET', `/${created.keyId}`);
      expect(read.status).toBe(200);
      expect(read.body).not.toHaveProperty('apiKey');
      expect(JSON.stringify((await api('GET', '?limit=100')).body)).not.toContain(created.apiKey);
      const stored = JSON.stringify(
        await stack.dataSource.query(`SELECT * FROM "gateway"."api_keys" WHERE "id" = $1`, [created.keyId]),
      );
      expect(stored).not.toContain(created.apiKey);
      const [audit] = await auditRows('gateway/api-keys/create');
      expect(audit).toMatchObject({ action: 'create', meta: { keyId: created.keyId, name: 'ci-bot' }, tenantId: null });
      expect(JSON.stringify(audit)).not.toContain(created.apiKey);
    });

    it('takes every setting: models, rpm, tpm, daily budget, networks, expiry in days, tenant', async () => {
      const before = Date.now();
      const created = await create({
        name: 'acme agent',
        models: ['demo', 'gpt-5', 'demo'],
        rpm: 60,
        tpm: 100_000,
        dailyBudgetUsd: 12.5,
        networks: ['10.0.0.0/8', '127.0.0.1'],
        expiresInDays: 30,
        tenantId: tenantId.toUpperCase(),
      });
      expect(created).toMatchObject({
        models: ['demo', 'gpt-5'],
        rpm: 60,
        tpm: 100_000,
        dailyBudgetUsd: 12.5,
        networks: ['10.0.0.0/8', '127.0.0.1/32'],
        tenantId,
      });
      const expires = Date.parse(created.expiresAt as string);
      expect(expires).toBeGreaterThanOrEqual(before + 30 * 86_400_000 - 1000);
      expect(expires).toBeLessThanOrEqual(Date.now() + 30 * 86_400_000);
      // A loopback call is within its networks, demo within its models.
      expect(await complete(created.apiKey as string)).toBe(200);
      expect(await complete(created.apiKey as string, 'other')).not.toBe(200);
      const future = new Date(Date.now() + 86_400_000).toISOString();
      expect((await create({ name: 'dated', expiresAt: future })).expiresAt).toBe(future);
    });

    it.each([
      ['name is missing', {}],
      ['name is blank', { name: '   ' }],
      ['name is over 100 characters', { name: 'n'.repeat(101) }],
      ['name has characters outside its set', { name: 'bad<name>' }],
      ['name is not a string', { name: 7 }],
      ['rpm is zero', { name: 'k', rpm: 0 }],
      ['rpm is not an integer', { name: 'k', rpm: 1.5 }],
      ['rpm is a string', { name: 'k', rpm: '60' }],
      ['tpm is above 2,000,000,000', { name: 'k', tpm: 2_000_000_001 }],
      ['the daily budget has 5 decimals', { name: 'k', dailyBudgetUsd: 1.23456 }],
      ['the daily budget is negative', { name: 'k', dailyBudgetUsd: -1 }],
      ['a network is not a CIDR', { name: 'k', networks: ['not-a-network'] }],
      ['networks is not a list', { name: 'k', networks: '10.0.0.0/8' }],
      ['a model name has a space', { name: 'k', models: ['gpt 5'] }],
      ['models lists over 100', { name: 'k', models: Array.from({ length: 101 }, (_, i) => `m${i}`) }],
      ['expiresAt is in the past', { name: 'k', expiresAt: '2020-01-01T00:00:00Z' }],
      ['expiresAt is not ISO 8601', { name: 'k', expiresAt: 'next week' }],
      [
        'expiresAt and expiresInDays are both given',
        { name: 'k', expiresAt: '2099-01-01T00:00:00Z', expiresInDays: 3 },
      ],
      ['expiresInDays is zero', { name: 'k', expiresInDays: 0 }],
      ['expiresInDays is over 3650', { name: 'k', expiresInDays: 3651 }],
      ['tenantId is not a UUID', { name: 'k', tenantId: 'acme' }],
      ['tenantId names no tenant', { name: 'k', tenantId: randomUUID() }],
      ['a field is unknown', { name: 'k', owner: 'me' }],
    ])('refuses a key whose %s (400 invalid_parameter), and stores none', async (_, body) => {
      const count = async () =>
        Number(
          ((await stack.dataSource.query(`SELECT count(*) AS "n" FROM "gateway"."api_keys"`)) as [{ n: string }])[0].n,
        );
      const before = await count();
      const res = await api('POST', '', body);
      expect([res.status, res.body.error?.code]).toEqual([400, 'invalid_parameter']);
      expect(await count()).toBe(before);
    });
  });

  describe('GET /api/v1/admin/api-keys', () => {
    let listed: Record<string, KeyBody>;

    beforeAll(async () => {
      listed = {};
      for (const name of ['list-live', 'list_under', 'List-Other']) listed[name] = await create({ name: `${name}` });
      listed.revoked = await create({ name: 'list-revoked' });
      expect((await api('POST', `/${listed.revoked.keyId}/revoke`)).status).toBe(200);
      listed.expired = await create({ name: 'list-expired', expiresInDays: 1 });
      await stack.dataSource.query(
        `UPDATE "gateway"."api_keys" SET "expires_at" = now() - interval '1 hour' WHERE "id" = $1`,
        [listed.expired.keyId],
      );
      listed.tenant = await create({ name: 'list-tenant', tenantId });
    });

    const list = async (query: string) => {
      const res = await api('GET', query);
      expect(res.status).toBe(200);
      return res.body as unknown as {
        apiKeys: KeyBody[];
        total: number;
        limit: number;
        page: number;
        hasMore: boolean;
      };
    };
    const names = (keys: KeyBody[]) => keys.map((key) => key.name);

    it('lists keys newest first in numbered pages (limit, page, total, hasMore), with hints and never a key', async () => {
      const all = await list('?limit=100');
      expect(all).toMatchObject({ limit: 100, page: 1, hasMore: false });
      expect(all.total).toBe(all.apiKeys.length);
      const created = all.apiKeys.map((key) => Date.parse(key.createdAt));
      expect(created).toEqual([...created].sort((a, b) => b - a));
      for (const key of all.apiKeys) {
        expect(key).not.toHaveProperty('apiKey');
        expect(key.keyHint).toMatch(/^fed_\.\.\..{4}$/);
      }
      const first = await list('?limit=2&page=1');
      const second = await list('?limit=2&page=2');
      expect(first).toMatchObject({ total: all.total, limit: 2, page: 1, hasMore: true });
      expect([...first.apiKeys, ...second.apiKeys].map((key) => key.keyId)).toEqual(
        all.apiKeys.slice(0, 4).map((key) => key.keyId),
      );
      expect((await list('?limit=25')).limit).toBe(25);
      expect((await list('')).limit).toBe(25);
    });

    it('filters by state: live, revoked, expired', async () => {
      const live = await list('?state=live&limit=100');
      expect(live.apiKeys.every((key) => key.state === 'live')).toBe(true);
      expect(names(live.apiKeys)).toEqual(expect.arrayContaining(['list-live', 'list-tenant']));
      expect(names(live.apiKeys)).not.toContain('list-revoked');
      expect(names(live.apiKeys)).not.toContain('list-expired');
      const revoked = await list('?state=revoked&limit=100');
      expect(revoked.apiKeys.find((key) => key.name === 'list-revoked')).toMatchObject({
        state: 'revoked',
        revokedAt: expect.any(String),
      });
      expect(revoked.apiKeys.every((key) => key.state === 'revoked')).toBe(true);
      const expired = await list('?state=expired&limit=100');
      expect(names(expired.apiKeys)).toEqual(['list-expired']);
      expect(expired.apiKeys[0]?.state).toBe('expired');
      expect(expired.total).toBe(1);
    });

    it('filters by tenant and searches names in any letter case, LIKE characters as themselves', async () => {
      const tenant = await list(`?tenantId=${tenantId}&limit=100`);
      expect(tenant.apiKeys.length).toBeGreaterThan(0);
      expect(tenant.apiKeys.every((key) => key.tenantId === tenantId)).toBe(true);
      expect(names(tenant.apiKeys)).toContain('list-tenant');
      expect(names((await list('?search=LIST&limit=100')).apiKeys).sort()).toEqual(
        ['List-Other', 'list_under', 'list-expired', 'list-live', 'list-revoked', 'list-tenant'].sort(),
      );
      expect(names((await list('?search=t_u')).apiKeys)).toEqual(['list_under']);
      expect((await list('?search=list_live')).total).toBe(0);
      expect(names((await list('?search=list&state=live&limit=100')).apiKeys).sort()).toEqual(
        ['List-Other', 'list_under', 'list-live', 'list-tenant'].sort(),
      );
    });

    it.each(['state=gone', 'limit=0', 'limit=101', 'page=0', 'tenantId=acme', `search=${'s'.repeat(101)}`, 'search='])(
      'refuses a bad query value with 400 invalid_parameter (%s)',
      async (query) => {
        const res = await api('GET', `?${query}`);
        expect([res.status, res.body.error?.code]).toEqual([400, 'invalid_parameter']);
      },
    );
  });

  describe('GET /api/v1/admin/api-keys/:keyId', () => {
    it('reads one key (any letter case of its id)', async () => {
      const created = await create({ name: 'one-key', rpm: 5 });
      const res = await api('GET', `/${created.keyId.toUpperCase()}`);
      expect(res.status).toBe(200);
      const { apiKey: _apiKey, ...shown } = created;
      expect(res.body).toEqual(shown);
    });

    it.each([randomUUID(), 'not-a-uuid'])('answers 404 not_found for a key that does not exist (%s)', async (keyId) => {
      const res = await api('GET', `/${keyId}`);
      expect([res.status, res.body.error?.code]).toEqual([404, 'not_found']);
    });
  });

  describe('PATCH /api/v1/admin/api-keys/:keyId', () => {
    it('changes limits, models, networks, name and expiry; null clears a setting', async () => {
      const created = await create({ name: 'patch-me', rpm: 5, models: ['demo'], networks: ['10.0.0.0/8'] });
      const expiresAt = new Date(Date.now() + 7 * 86_400_000).toISOString();
      const changed = await api('PATCH', `/${created.keyId}`, {
        name: 'patched',
        rpm: 100,
        tpm: 5000,
        dailyBudgetUsd: 3.25,
        models: ['demo', 'gpt-5'],
        networks: ['192.168.0.0/16'],
        expiresAt,
      });
      expect(changed.status).toBe(200);
      expect(changed.body).toMatchObject({
        keyId: created.keyId,
        name: 'patched',
        rpm: 100,
        tpm: 5000,
        dailyBudgetUsd: 3.25,
        models: ['demo', 'gpt-5'],
        networks: ['192.168.0.0/16'],
        expiresAt,
        state: 'live',
        keyHint: created.keyHint,
      });
      const cleared = await api('PATCH', `/${created.keyId}`, {
        rpm: null,
        tpm: null,
        dailyBudgetUsd: null,
        models: null,
        networks: null,
        expiresAt: null,
      });
      expect(cleared.body).toMatchObject({
        name: 'patched',
        rpm: null,
        tpm: null,
        dailyBudgetUsd: null,
        models: null,
        networks: null,
        expiresAt: null,
      });
      expect((await api('GET', `/${created.keyId}`)).body).toEqual(cleared.body);
      const audit = (await auditRows('gateway/api-keys/update')).filter((row) => row.meta.keyId === created.keyId);
      expect(audit.map((row) => row.action)).toEqual(['update', 'update']);
    });

    it('tells running gateways at once: a key narrowed to other models is refused its model right after', async () => {
      const created = await create({ name: 'narrowed' });
      const apiKey = created.apiKey as string;
      // Cached by the gateway now (for 30 s without a signal).
      expect(await complete(apiKey)).toBe(200);
      expect((await api('PATCH', `/${created.keyId}`, { models: ['gpt-5'] })).status).toBe(200);
      expect(await until(403, () => complete(apiKey))).toBeLessThan(1000);
    });

    it('makes an expired key live again with a later expiry', async () => {
      const created = await create({ name: 'extend-me', expiresInDays: 1 });
      await stack.dataSource.query(
        `UPDATE "gateway"."api_keys" SET "expires_at" = now() - interval '1 hour' WHERE "id" = $1`,
        [created.keyId],
      );
      expect((await api('GET', `/${created.keyId}`)).body.state).toBe('expired');
      const extended = await api('PATCH', `/${created.keyId}`, { expiresInDays: 10 });
      expect(extended.body.state).toBe('live');
    });

    it('refuses to change a revoked key (409 conflict), which stays as it was', async () => {
      const created = await create({ name: 'revoked-for-good', rpm: 5 });
      expect((await api('POST', `/${created.keyId}/revoke`)).status).toBe(200);
      const res = await api('PATCH', `/${created.keyId}`, { rpm: 50, expiresAt: null });
      expect([res.status, res.body.error?.code]).toEqual([409, 'conflict']);
      expect((await api('GET', `/${created.keyId}`)).body).toMatchObject({ state: 'revoked', rpm: 5 });
    });

    it.each([
      ['an empty body', {}],
      ['tenantId, which never changes', { tenantId: randomUUID() }],
      ['a bad limit', { rpm: -5 }],
      ['a bad network', { networks: ['300.1.1.1'] }],
      ['an expiry in the past', { expiresAt: '2001-01-01T00:00:00Z' }],
      ['a blank name', { name: '' }],
    ])('refuses %s with 400 invalid_parameter', async (_, body) => {
      const created = await create({ name: 'unchanged' });
      const res = await api('PATCH', `/${created.keyId}`, body);
      expect([res.status, res.body.error?.code]).toEqual([400, 'invalid_parameter']);
      const { apiKey: _apiKey, ...shown } = created;
      expect((await api('GET', `/${created.keyId}`)).body).toEqual(shown);
    });

    it('answers 404 not_found for a key that does not exist', async () => {
      const res = await api('PATCH', `/${randomUUID()}`, { rpm: 5 });
      expect([res.status, res.body.error?.code]).toEqual([404, 'not_found']);
    });
  });

  describe('POST /api/v1/admin/api-keys/:keyId/revoke', () => {
    it('revokes a key, which a running gateway refuses right after (it had the key cached)', async () => {
      const created = await create({ name: 'revoke-me' });
      const apiKey = created.apiKey as string;
      expect(await complete(apiKey)).toBe(200);
      const revoked = await api('POST', `/${created.keyId}/revoke`);
      expect(revoked.status).toBe(200);
      expect(revoked.body).toMatchObject({ keyId: created.keyId, state: 'revoked', revokedAt: expect.any(String) });
      expect(await until(401, () => complete(apiKey))).toBeLessThan(1000);
      const [audit] = (await auditRows('gateway/api-keys/revoke')).filter((row) => row.meta.keyId === created.keyId);
      expect(audit).toMatchObject({ action: 'revoke' });
    });

    it('refuses to revoke a revoked key again (409 conflict), keeping its first revocation time', async () => {
      const created = await create({ name: 'revoke-twice' });
      const first = await api('POST', `/${created.keyId}/revoke`);
      const again = await api('POST', `/${created.keyId}/revoke`);
      expect([again.status, again.body.error?.code]).toEqual([409, 'conflict']);
      expect((await api('GET', `/${created.keyId}`)).body.revokedAt).toBe(first.body.revokedAt);
    });

    it('answers 404 not_found for a key that does not exist', async () => {
      const res = await api('POST', `/${randomUUID()}/revoke`);
      expect([res.status, res.body.error?.code]).toEqual([404, 'not_found']);
    });
  });

  describe('who may call', () => {
    let keyId: string;
    beforeAll(async () => {
      keyId = (await create({ name: 'guarded' })).keyId;
    });

    const routes = (): [string, string, unknown?][] => [
      ['GET', ''],
      ['GET', `/${keyId}`],
      ['POST', '', { name: 'intruder' }],
      ['PATCH', `/${keyId}`, { rpm: 1 }],
      ['POST', `/${keyId}/revoke`],
    ];

    it('refuses a request without a token: 401 on every route', async () => {
      for (const [method, path, body] of routes()) {
        const res = await call(stack.admin, method, `${KEYS}${path}`, undefined, body);
        expect([method, path, res.status]).toEqual([method, path, 401]);
      }
    });

    it.each([
      ["a tenant admin's user token (the admin role, every tenant management scope)", () => tenantAdmin],
      ["a plain user's token", () => plainUser],
      ["a tenant's client_credentials client holding every other management scope", () => tenantClient],
    ])('refuses %s: 403 insufficient_scope on every route, nothing changed', async (_, token) => {
      for (const [method, path, body] of routes()) {
        const res = await call(stack.admin, method, `${KEYS}${path}`, token(), body);
        expect([method, path, res.status, res.body.error?.code]).toEqual([method, path, 403, 'insufficient_scope']);
      }
      expect((await api('GET', `/${keyId}`)).body).toMatchObject({ state: 'live', rpm: null });
      expect(((await api('GET', '?search=intruder')).body as { total: number }).total).toBe(0);
    });
  });
});
