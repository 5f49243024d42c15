import 'reflect-metadata';
import { AccessLogsModule, LogRetentionJob, LogRetentionModule } from '@fed/audit';
import { apiKeysServiceFor } from '@fed/gateway';
import { AccessLog, type RunningService } from '@fed/server';
import { DataSource } from 'typeorm';
import { type AdminStack, bootAdminStack, call } from './testing/boot-admin-stack';
import { bootGateway } from './testing/boot-gateway';
import { operatorToken } from './testing/operator-token';

type AccessLogRow = Record<string, unknown> & { path: string; service: string };

const ACCESS_LOGS = '/api/v1/admin/access-logs';
const RECORD_FIELDS = [
  'accessLogId',
  'timestamp',
  'service',
  'sourceNamespace',
  'sourceIp',
  'method',
  'host',
  'path',
  'userAgent',
  'statusCode',
  'durationMs',
  'authzResult',
  'authzReason',
  'tenantId',
];

// Requests to auth-service, admin-service, chat-service and llm-gateway (each its own host, one database),
// read back through admin-service.
describe('access log (GET /v1/admin/access-logs): one row per HTTP request of every service', () => {
  let stack: AdminStack;
  let gateway: RunningService;
  let apiKey: string;
  let admin: string; // every admin scope, logs:read included
  let noLogs: string; // users:read only
  // Reads the rows of every caller, anonymous ones included (tenant scoping: log-tenants.spec.ts).
  let operator: string;

  beforeAll(async () => {
    stack = await bootAdminStack({ adminFeatures: [AccessLogsModule, LogRetentionModule] });
    const booted = await bootGateway(stack.database.url);
    gateway = booted.service;
    apiKey = (
      await apiKeysServiceFor(gateway.nest.get(DataSource), {
        keyPrefix: booted.keyPrefix,
      }).create({ name: 'access-log-test' })
    ).apiKey;
    await stack.createUser('alice', { role: 'admin' });
    await stack.createUser('rita');
    admin = (await stack.signIn('alice')).accessToken;
    noLogs = (await stack.signIn('rita', 'openid users:read')).accessToken;
    operator = await operatorToken(stack.auth, ['logs:read']);
  }, 120_000);

  afterAll(async () => {
    await gateway?.shutdown('test');
    await stack?.close();
  });

  // Each host flushes every second; the tests write what is buffered now.
  const flushAll = () =>
    Promise.all([stack.auth, stack.admin, stack.chat, gateway].map((service) => service.nest.get(AccessLog).flush()));

  const list = async (query = '', token = operator) => call(stack.admin, 'GET', `${ACCESS_LOGS}${query}`, token);

  /** The newest 100 rows, everything buffered written first. */
  const rows = async (): Promise<AccessLogRow[]> => {
    await flushAll();
    const { body } = await list('?limit=100');
    return body.accessLogs as AccessLogRow[];
  };

  it('records a sign-in: discovery, the authorization request, the login form and the token request', async () => {
    const auth = (await rows()).filter((row) => row.service === 'auth-service');
    const paths = auth.map((row) => `${row.method as string} ${row.path.split('?')[0] as string}`);
    expect(paths).toEqual(
      expect.arrayContaining([
        'GET /realms/federation/.well-known/openid-configuration',
        'GET /federation/auth/v1/authorize',
        'POST /federation/auth/v1/token',
      ]),
    );
    expect(paths.some((path) => path.startsWith('POST /federation/auth/v1/interaction/'))).toBe(true);
    const authorization = auth.find((row) => row.path.startsWith('/federation/auth/v1/authorize?')) as AccessLogRow;
    expect(authorization.path).toContain('state=[redacted]');
    expect(authorization.path).toContain('code_challenge=[redacted]');
    expect(authorization).toMatchObject({ authzResult: null, authzReason: null });
    // The token request (a fast route): the client authenticated by its secret.
    expect(auth.find((row) => row.path === '/federation/auth/v1/token' && row.statusCode === 200)).toMatchObject({
      authzResult: 'allow',
      authzReason: 'client_secret',
    });
  });

  it('records method, host, path, status, duration, source IP, user agent, and the authorization decision', async () => {
    await flushAll();
    const before = Date.now();
    const conversations = `${stack.chat.url}/api/v1/conversations`;
    await fetch(conversations, { headers: { 'user-agent': 'access-test/1' } });
    await fetch(conversations, { headers: { authorization: 'Bearer not.a.token' } });
    await fetch(conversations, { headers: { authorization: `Bearer ${noLogs}` } });
    await fetch(conversations, { headers: { authorization: `Bearer ${admin}` } });
    const chat = (await rows()).filter(
      (row) => row.service === 'chat-service' && Date.parse(row.timestamp as string) >= before - 5,
    );
    expect(chat.map((row) => [row.statusCode, row.authzResult, row.authzReason]).reverse()).toEqual([
      [401, 'deny', 'missing_token'],
      [401, 'deny', 'invalid_token'],
      [403, 'deny', 'insufficient_scope'],
      [200, 'allow', 'access_token'],
    ]);
    const first = chat[chat.length - 1] as AccessLogRow;
    expect(Object.keys(first).sort()).toEqual([...RECORD_FIELDS].sort());
    expect(first).toMatchObject({
      method: 'GET',
      host: new URL(stack.chat.url).host,
      path: '/api/v1/conversations',
      userAgent: 'access-test/1',
      sourceIp: '127.0.0.1',
      sourceNamespace: null,
    });
    expect(typeof first.durationMs).toBe('number');
  });

  it('never stores a query secret (code, access_token, client_secret, id_token_hint, state...)', async () => {
    const secrets = {
      code: 'SECRET-CODE-1',
      access_token: 'SECRET-AT-2',
      client_secret: 'SECRET-CS-3',
      id_token_hint: 'SECRET-IDT-4',
      state: 'SECRET-STATE-5',
      refresh_token: 'SECRET-RT-6',
    };
    const query = new URLSearchParams({ ...secrets, limit: '5' }).toString();
    await fetch(`${stack.chat.url}/api/v1/conversations?${query}`);
    await fetch(`${stack.auth.url}/federation/auth/v1/session/end?${query}`);
    await fetch(`${gateway.url}/llm/v1/models?${query}`);
    await flushAll();
    const [{ leaked }] = (await stack.dataSource.query(
      `SELECT count(*)::int AS "leaked" FROM "audit"."access_logs" WHERE "path" LIKE '%SECRET%'`,
    )) as { leaked: number }[];
    expect(leaked).toBe(0);
    const chat = (await rows()).find((row) => row.path.startsWith('/api/v1/conversations?'));
    expect(chat?.path).toBe(
      '/api/v1/conversations?code=[redacted]&access_token=[redacted]&client_secret=[redacted]&id_token_hint=[redacted]&state=[redacted]&refresh_token=[redacted]&limit=5',
    );
  });

  it('bounds what a hostile request can make it store (path 2,048 characters, user agent 512)', async () => {
    const res = await fetch(`${stack.chat.url}/${'a'.repeat(6000)}?page=1`, {
      headers: { 'user-agent': 'u'.repeat(5000) },
    });
    expect(res.status).toBe(404);
    const [newest] = (await rows()).filter((row) => row.path.startsWith('/aaaa'));
    expect(newest?.path).toHaveLength(2048);
    expect(newest?.userAgent).toHaveLength(512);
  });

  it('records gateway calls (a fast route prefix) with the key check', async () => {
    await fetch(`${gateway.url}/llm/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
      body: JSON.stringify({ model: 'demo', messages: [{ role: 'user', content: 'hello' }] }),
    }).then((res) => res.text());
    await fetch(`${gateway.url}/llm/v1/chat/completions`, { method: 'POST', body: '{}' }).then((res) => res.text());
    const calls = (await rows()).filter(
      (row) => row.service === 'llm-gateway' && row.path === '/llm/v1/chat/completions',
    );
    expect(calls.map((row) => [row.method, row.statusCode, row.authzResult, row.authzReason])).toEqual([
      ['POST', 401, 'deny', 'missing_api_key'],
      ['POST', 200, 'allow', 'api_key'],
    ]);
  });

  it('records a refused token request (a fast route) as denied: invalid_client', async () => {
    const res = await fetch(`${stack.auth.url}/federation/auth/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&client_id=console&client_secret=wrong',
    });
    expect(res.status).toBe(401);
    const [newest] = (await rows()).filter((row) => row.path === '/federation/auth/v1/token');
    expect(newest).toMatchObject({
      method: 'POST',
      statusCode: 401,
      authzResult: 'deny',
      authzReason: 'invalid_client',
    });
  });

  it('does not record probes (/healthz, /readyz, /metrics)', async () => {
    for (const probe of ['/healthz', '/readyz', '/metrics']) await (await fetch(`${stack.chat.url}${probe}`)).text();
    expect((await rows()).filter((row) => ['/healthz', '/readyz', '/metrics'].includes(row.path))).toEqual([]);
  });

  it('lists newest first with the envelope, and filters by from and to (UTC days, to inclusive)', async () => {
    await stack.dataSource.query(
      `INSERT INTO "audit"."access_logs" ("id", "created_at", "service", "path", "status_code")
       VALUES ('00000000-0000-7000-8000-000000000001', now() - interval '10 days', 'old', '/old', 200)`,
    );
    const all = await rows();
    const stamps = all.map((row) => Date.parse(row.timestamp as string));
    expect(stamps).toEqual([...stamps].sort((a, b) => b - a));
    const tenDaysAgo = new Date(Date.now() - 10 * 86_400_000).toISOString().slice(0, 10);
    const old = await list(`?from=${tenDaysAgo}&to=${tenDaysAgo}`);
    expect(old.status).toBe(200);
    expect(old.body).toMatchObject({ total: 1, limit: 25, page: 1, hasMore: false });
    expect(old.body.accessLogs).toEqual([expect.objectContaining({ service: 'old', path: '/old', statusCode: 200 })]);
    const paged = await list('?limit=2&page=2');
    expect(paged.body).toMatchObject({ limit: 2, page: 2, hasMore: true });
    expect((paged.body.accessLogs as unknown[]).length).toBe(2);
    expect(paged.body.total as number).toBeGreaterThanOrEqual(all.length);
  });

  it.each(['from=2026-13-01', 'to=2026-02-30', 'from=2026-03-02&to=2026-03-01', 'limit=0', 'limit=101', 'page=0'])(
    'refuses bad query values with 400 (%s)',
    async (query) => {
      const { status, body } = await list(`?${query}`);
      expect(status).toBe(400);
      expect(body.error?.code).toBe('invalid_parameter');
    },
  );

  it('refuses a request without a token (401) and a token without logs:read (403)', async () => {
    expect((await call(stack.admin, 'GET', ACCESS_LOGS, undefined)).status).toBe(401);
    expect((await list('', noLogs)).status).toBe(403);
  });

  it('deletes rows older than ACCESS_LOG_RETENTION_DAYS (default 30) and keeps the total exact', async () => {
    await stack.dataSource.query(
      `INSERT INTO "audit"."access_logs" ("id", "created_at", "service") VALUES
       ('00000000-0000-7000-8000-000000000002', now() - interval '31 days', 'expired')`,
    );
    await flushAll();
    const before = (await list()).body.total as number;
    const deleted = await stack.admin.nest.get(LogRetentionJob).run();
    expect(deleted.access).toBe(1);
    await flushAll();
    const [{ count }] = (await stack.dataSource.query(
      `SELECT count(*)::int AS "count" FROM "audit"."access_logs" WHERE "service" = 'expired'`,
    )) as { count: number }[];
    expect(count).toBe(0);
    // The list call above is itself a new row: the total moved by +1 (it) - 1 (expired).
    expect((await list()).body.total).toBe(before);
  });
});
