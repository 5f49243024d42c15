import 'reflect-metadata';
import { ClientsService } from '@fed/identity';
import { MemoryItems, MemoryQueryModule, type NewMemoryItem, memoryEmbeddings } from '@fed/memory';
import { ScriptedUpstream } from '@fed/testing';
import { randomUUID } from 'node:crypto';
import { type LogsHarness, bootLogsHarness } from './testing/logs-harness';

const LIMIT = 20;
const TIMEOUT_MS = 1500;

interface QueryAnswer {
  status: number;
  headers: Headers;
  body: {
    memories?: { text: string; type: string; scope: string; createdAt: string | null; score?: number }[];
    error?: { type: string; code: string; message: string };
  };
}

// admin-service with the memory query module, embedding through a scripted OpenAI-compatible upstream
// (standing in for the gateway), with tokens of service accounts of two tenants from the real realm.
describe('shared memory query (POST /v1/admin/memory/query)', () => {
  let harness: LogsHarness;
  let upstream: ScriptedUpstream;
  let acme: { tenantId: string; token: string };
  let globex: { tenantId: string; token: string };

  beforeAll(async () => {
    upstream = await ScriptedUpstream.start({ latencyMs: 0 });
    harness = await bootLogsHarness({
      adminFeatures: [MemoryQueryModule],
      adminEnv: {
        MEMORY_EMBEDDING_MODEL: 'embedder',
        MEMORY_GATEWAY_URL: `${upstream.url}/v1`,
        MEMORY_GATEWAY_API_KEY: 'sk-test',
        MEMORY_EMBEDDING_TIMEOUT_MS: String(TIMEOUT_MS),
        MEMORY_QUERY_MONTHLY_LIMIT: String(LIMIT),
      },
    });
    acme = await tenantToken('acme', ['sharedmemory:query']);
    globex = await tenantToken('globex', ['sharedmemory:query']);
  }, 120_000);

  afterAll(async () => {
    await harness?.close();
    await upstream?.close();
  });

  async function tenantToken(name: string, scopes: string[]): Promise<{ tenantId: string; token: string }> {
    let [tenant] = (await harness.dataSource.query(`SELECT "id" FROM "identity"."tenants" WHERE "name" = $1`, [
      name,
    ])) as { id: string }[];
    if (!tenant) {
      tenant = { id: randomUUID() };
      await harness.dataSource.query(
        `INSERT INTO "identity"."tenants" ("id", "name", "type", "endpoint", "enabled", "created_at")
         VALUES ($1, $2, 'saas', 'https://example.com', true, now())`,
        [tenant.id, name],
      );
    }
    const clientId = `${name}-${randomUUID().slice(0, 8)}`;
    const { clientSecret } = await harness.auth.nest.get(ClientsService).create({
      clientId,
      name: clientId,
      grantTypes: ['client_credentials'],
      scopes,
      tenantName: name,
    });
    const res = await fetch(`${harness.auth.url}/federation/auth/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
    });
    expect(res.status).toBe(200);
    return { tenantId: tenant.id, token: ((await res.json()) as { access_token: string }).access_token };
  }

  async function query(token: string | undefined, body: unknown): Promise<QueryAnswer> {
    const res = await fetch(`${harness.admin.url}/api/v1/admin/memory/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as QueryAnswer['body'] };
  }

  const used = async (tenantId: string) =>
    Number(
      (
        (await harness.dataSource.query(
          `SELECT coalesce(sum("used"), 0) AS "used" FROM "memory"."query_usage" WHERE "bucket" = $1`,
          [tenantId],
        )) as { used: string }[]
      )[0].used,
    );

  const nextMonth = () => {
    const now = new Date();
    return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
  };

  it('answers 200 with an empty array when nothing matches, with the quota headers', async () => {
    const answer = await query(acme.token, { query: 'nothing stored yet' });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ memories: [] });
    expect(answer.headers.get('x-ratelimit-limit')).toBe(String(LIMIT));
    expect(answer.headers.get('x-ratelimit-remaining')).toBe(String(LIMIT - 1));
    expect(answer.headers.get('x-ratelimit-reset')).toBe(nextMonth());
  });

  describe('with items of both tenants', () => {
    beforeAll(async () => {
      const items = new MemoryItems(
        harness.dataSource,
        memoryEmbeddings({
          gatewayUrl: `${upstream.url}/v1`,
          embeddingModel: 'embedder',
          embeddingTimeoutMs: 5000,
        }),
      );
      const add = (tenantId: string | null, text: string, more: Partial<NewMemoryItem> = {}) => ({
        tenantId,
        text,
        scope: 'global' as const,
        ...more,
      });
      await items.add([
        add(acme.tenantId, 'Acme invoices are paid within thirty days.'),
        add(null, 'Invoices of every tenant carry a VAT number.'),
        add(globex.tenantId, 'Globex invoices are secret to Globex.'),
        add(acme.tenantId, 'Sales invoices go to the sales ledger.', { scope: 'organization', orgId: 'sales' }),
        add(acme.tenantId, 'Accountants check invoices on Fridays.', { scope: 'role', jobRole: 'accountant' }),
      ]);
    });

    it('returns Memory items: text, type knowledge, scope, createdAt, a score in [0, 1]; best first', async () => {
      const { status, body } = await query(acme.token, { query: 'invoices' });
      expect(status).toBe(200);
      const memories = body.memories ?? [];
      expect(memories.map((memory) => memory.text).sort()).toEqual([
        'Acme invoices are paid within thirty days.',
        'Invoices of every tenant carry a VAT number.',
      ]);
      for (const memory of memories) {
        expect(Object.keys(memory).sort()).toEqual(['createdAt', 'scope', 'score', 'text', 'type']);
        expect(memory).toMatchObject({ type: 'knowledge', scope: 'global' });
        expect(new Date(memory.createdAt as string).toISOString()).toBe(memory.createdAt);
        expect(memory.score).toBeGreaterThan(0);
        expect(memory.score).toBeLessThanOrEqual(1);
      }
      expect(memories[0].score).toBeGreaterThanOrEqual(memories[1].score as number);
    });

    it('adds organization items only with their orgId and role items only with their jobRole', async () => {
      const scopes = async (body: object) =>
        ((await query(acme.token, { query: 'invoices', ...body })).body.memories ?? []).map((m) => m.scope).sort();
      expect(await scopes({ orgId: 'sales' })).toEqual(['global', 'global', 'organization']);
      expect(await scopes({ jobRole: 'accountant' })).toEqual(['global', 'global', 'role']);
      expect(await scopes({ orgId: 'support', jobRole: 'engineer' })).toEqual(['global', 'global']);
    });

    it("never shows another tenant's items, whatever the filters", async () => {
      const { body } = await query(globex.token, {
        query: 'invoices acme sales accountant',
        orgId: 'sales',
        jobRole: 'accountant',
      });
      const texts = (body.memories ?? []).map((memory) => memory.text);
      expect(texts).not.toContain('Acme invoices are paid within thirty days.');
      expect(texts).not.toContain('Sales invoices go to the sales ledger.');
      expect(texts).not.toContain('Accountants check invoices on Fridays.');
      const all = await query(globex.token, { query: 'invoices OR acme OR sales OR accountants' });
      expect((all.body.memories ?? []).map((memory) => memory.text).sort()).toEqual([
        'Globex invoices are secret to Globex.',
        'Invoices of every tenant carry a VAT number.',
      ]);
    });
  });

  describe('refusals', () => {
    it.each([
      ['query missing', {}],
      ['query empty', { query: '' }],
      ['query blank', { query: '   ' }],
      ['query over 500 characters', { query: 'x'.repeat(501) }],
      ['query not a string', { query: 42 }],
      ['query with NUL', { query: 'a\u0000b' }],
      ['query with a lone surrogate', { query: 'a\ud800b' }],
      ['orgId over 100 characters', { query: 'x', orgId: 'o'.repeat(101) }],
      ['jobRole over 100 characters', { query: 'x', jobRole: 'r'.repeat(101) }],
      ['orgId not a string', { query: 'x', orgId: ['sales'] }],
    ])('400 invalid_request_error: %s (the quota is not counted)', async (_rule, body) => {
      const before = await used(acme.tenantId);
      const answer = await query(acme.token, body);
      expect(answer.status).toBe(400);
      expect(answer.body.error?.type).toBe('invalid_request_error');
      expect(await used(acme.tenantId)).toBe(before);
    });

    it('accepts a query of exactly 500 characters (an emoji is one)', async () => {
      expect((await query(acme.token, { query: '🙂'.repeat(500) })).status).toBe(200);
    });

    it('400 for a body that is not JSON', async () => {
      const answer = await query(acme.token, '{"query":');
      expect(answer.status).toBe(400);
      expect(answer.body.error?.code).toBe('invalid_json');
    });

    it('401 without a token or with a bad one', async () => {
      expect((await query(undefined, { query: 'x' })).status).toBe(401);
      expect((await query('not-a-token', { query: 'x' })).status).toBe(401);
    });

    it('403 permission_error without sharedmemory:query', async () => {
      const { token } = await tenantToken('acme', ['logs:read']);
      const answer = await query(token, { query: 'x' });
      expect(answer.status).toBe(403);
      expect(answer.body.error?.type).toBe('permission_error');
    });
  });

  describe('upstream failures: an error with the envelope and the quota headers, never an empty list, not counted', () => {
    it('502 upstream_error when the gateway answers an error', async () => {
      const before = await used(acme.tenantId);
      upstream.enqueue({ kind: 'status', status: 503, path: '/v1/embeddings' });
      const answer = await query(acme.token, { query: 'invoices' });
      expect(answer.status).toBe(502);
      expect(answer.body.error?.type).toBe('upstream_error');
      expect(answer.body.memories).toBeUndefined();
      expect(answer.headers.get('x-ratelimit-limit')).toBe(String(LIMIT));
      expect(answer.headers.get('x-ratelimit-remaining')).toBe(String(LIMIT - before));
      expect(answer.headers.get('x-ratelimit-reset')).toBe(nextMonth());
      expect(await used(acme.tenantId)).toBe(before);
    });

    it('502 upstream_error when the gateway drops the connection', async () => {
      upstream.enqueue({ kind: 'hangUp', path: '/v1/embeddings' });
      const answer = await query(acme.token, { query: 'invoices' });
      expect(answer.status).toBe(502);
      expect(answer.body.error?.type).toBe('upstream_error');
    });

    it('502 upstream_error when the gateway answers something that is not embeddings', async () => {
      upstream.enqueue({ kind: 'json', body: { data: [{ embedding: 'nope' }] }, path: '/v1/embeddings' });
      const answer = await query(acme.token, { query: 'invoices' });
      expect(answer.status).toBe(502);
      expect(answer.body.error?.type).toBe('upstream_error');
    });

    it('504 upstream_error / upstream_timeout when the gateway does not answer in MEMORY_EMBEDDING_TIMEOUT_MS', async () => {
      const before = await used(acme.tenantId);
      upstream.enqueue({ kind: 'stall', path: '/v1/embeddings' });
      const answer = await query(acme.token, { query: 'invoices' });
      expect(answer.status).toBe(504);
      expect(answer.body.error).toMatchObject({ type: 'upstream_error', code: 'upstream_timeout' });
      expect(answer.headers.get('x-ratelimit-remaining')).toBe(String(LIMIT - before));
      expect(await used(acme.tenantId)).toBe(before);
    });
  });

  describe('monthly quota', () => {
    it(`N parallel queries with L left give exactly L answers 200 and N - L answers 429 monthly_quota_exceeded`, async () => {
      const busy = await tenantToken('busy', ['sharedmemory:query']);
      const answers = await Promise.all(Array.from({ length: LIMIT + 10 }, () => query(busy.token, { query: 'x' })));
      const statuses = answers.map((answer) => answer.status);
      expect(statuses.filter((status) => status === 200)).toHaveLength(LIMIT);
      expect(statuses.filter((status) => status === 429)).toHaveLength(10);
      const remaining = answers
        .filter((answer) => answer.status === 200)
        .map((answer) => Number(answer.headers.get('x-ratelimit-remaining')))
        .sort((a, b) => a - b);
      expect(remaining).toEqual(Array.from({ length: LIMIT }, (_, i) => i));
      const refused = answers.find((answer) => answer.status === 429) as QueryAnswer;
      expect(refused.body.error).toMatchObject({ type: 'rate_limit_error', code: 'monthly_quota_exceeded' });
      expect(refused.headers.get('x-ratelimit-limit')).toBe(String(LIMIT));
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(refused.headers.get('x-ratelimit-reset')).toBe(nextMonth());
      expect(await used(busy.tenantId)).toBe(LIMIT);
      // Another tenant's quota is its own.
      expect((await query(globex.token, { query: 'x' })).status).toBe(200);
    });
  });
});
