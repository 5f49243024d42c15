import 'reflect-metadata';
import { AccessLogsModule, GuardrailAlertsModule, LlmLogsModule } from '@fed/audit';
import { decodeJwt } from 'jose';
import { randomUUID } from 'node:crypto';
import { type LogsHarness, bootLogsHarness } from './testing/logs-harness';
import { operatorToken } from './testing/operator-token';

const EXPORTS = {
  audit: { path: 'audit-logs', first: 'auditLogId' },
  llm: { path: 'llm-logs', first: 'llmLogId' },
  gateway: { path: 'llm-gateway-logs', first: 'llmGatewayLogId' },
  access: { path: 'access-logs', first: 'accessLogId' },
  guardrail: { path: 'guardrail-alerts', first: 'guardrailAlertId' },
} as const;

const tenantOf = (token: string) => (decodeJwt(token).tenant as { id: string }).id;

/** RFC 4180 records (quoted fields may hold commas, quotes and line breaks), without the byte order mark. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  const body = text.replace(/^\uFEFF/, '');
  for (let i = 0; i < body.length; i++) {
    const char = body[i];
    if (quoted) {
      if (char === '"' && body[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (char === '"') quoted = false;
      else cell += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      row.push(cell);
      cell = '';
    } else if (char === '\r' && body[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      [row, cell] = [[], ''];
      i++;
    } else cell += char;
  }
  if (cell !== '' || row.length > 0) rows.push([...row, cell]);
  return rows;
}

// Exports of admin-service's five logs over HTTP: rows inserted as the writers store them, read back as files.
describe('log export (GET /v1/admin/<log>/export): the list’s rows as a streamed CSV or JSON lines file', () => {
  let harness: LogsHarness;
  let adminA: string;
  let adminB: string;
  let operator: string;
  let tenantA: string;
  let tenantB: string;

  const insertAudit = (fields: { tenantId: string | null; createdAt: string; userAgent?: string; meta?: unknown }) =>
    harness.dataSource.query(
      `INSERT INTO "audit"."audit_logs" ("id", "resource", "action", "meta", "user_id", "user_email", "ip_address",
         "user_agent", "created_at", "tenant_id") VALUES ($1, 'users', 'approve', $2, 'u-1', 'a@example.com', '10.0.0.1', $3, $4, $5)`,
      [
        randomUUID(),
        fields.meta === undefined ? null : JSON.stringify(fields.meta),
        fields.userAgent ?? null,
        fields.createdAt,
        fields.tenantId,
      ],
    );

  beforeAll(async () => {
    harness = await bootLogsHarness({ adminFeatures: [LlmLogsModule, AccessLogsModule, GuardrailAlertsModule] });
    await harness.dataSource.query(
      `INSERT INTO "identity"."tenants" ("id", "name", "type", "endpoint", "enabled", "created_at")
       VALUES ($1, 'tenant-b', 'saas', 'https://b.example.com', true, now())`,
      [randomUUID()],
    );
    adminA = await harness.signInAs('alice', 'logs:read');
    adminB = await harness.signInAs('bob', 'logs:read', 'tenant-b');
    [tenantA, tenantB] = [tenantOf(adminA), tenantOf(adminB)];
    operator = await operatorToken(harness.auth, ['logs:read']);
  }, 120_000);

  afterAll(async () => {
    await harness?.close();
  });

  it.each([
    ['no format', ''],
    ['an unknown format', 'format=xlsx'],
    ['a date that is no day', 'format=csv&from=2026-02-30'],
    ['a date of another shape', 'format=csv&to=03/12/2026'],
    ['to before from', 'format=jsonl&from=2026-03-02&to=2026-03-01'],
  ])('refuses %s with 400 invalid_parameter, before any file', async (_case, query) => {
    for (const { path } of Object.values(EXPORTS)) {
      const res = await harness.get(`/api/v1/admin/${path}/export?${query}`, adminA);
      expect(res.status).toBe(400);
      expect(res.headers.get('content-disposition')).toBeNull();
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_parameter');
    }
  });

  it('answers 401 without a token and 403 to a token without logs:read', async () => {
    const plain = await harness.signInAs('carol', 'users:read');
    for (const { path } of Object.values(EXPORTS)) {
      const anonymous = await fetch(`${harness.admin.url}/api/v1/admin/${path}/export?format=csv`);
      expect(anonymous.status).toBe(401);
      const refused = await harness.get(`/api/v1/admin/${path}/export?format=csv`, plain);
      expect(refused.status).toBe(403);
      expect(refused.headers.get('content-disposition')).toBeNull();
    }
  });

  it('names the file by log and range, as an attachment, and an empty range is the header line alone', async () => {
    for (const [name, { path, first }] of Object.entries(EXPORTS)) {
      const csv = await harness.get(`/api/v1/admin/${path}/export?format=csv&from=2001-01-01&to=2001-01-02`, adminA);
      expect(csv.status).toBe(200);
      expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      expect(csv.headers.get('content-disposition')).toBe(`attachment; filename="${path}_2001-01-01_2001-01-02.csv"`);
      const rows = parseCsv(await csv.text());
      expect({ name, rows: rows.length, first: rows[0]?.[0] }).toEqual({ name, rows: 1, first });
      const jsonl = await harness.get(
        `/api/v1/admin/${path}/export?format=jsonl&from=2001-01-01&to=2001-01-02`,
        adminA,
      );
      expect(jsonl.headers.get('content-type')).toBe('application/jsonl; charset=utf-8');
      expect(jsonl.headers.get('content-disposition')).toBe(
        `attachment; filename="${path}_2001-01-01_2001-01-02.jsonl"`,
      );
      expect(await jsonl.text()).toBe('');
    }
  });

  it('exports a tenant’s own rows alone, the operator (no tenant) every row, as the list shows them', async () => {
    await insertAudit({ tenantId: tenantA, createdAt: '2002-05-01T10:00:00.000Z' });
    await insertAudit({ tenantId: tenantB, createdAt: '2002-05-01T11:00:00.000Z' });
    await insertAudit({ tenantId: null, createdAt: '2002-05-01T12:00:00.000Z' });
    const query = '?from=2002-05-01&to=2002-05-01';
    const lines = async (token: string) => {
      const res = await harness.get(`/api/v1/admin/audit-logs/export${query}&format=jsonl`, token);
      return (await res.text())
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { tenantId: string | null; auditLogId: string });
    };
    const [a, b, all] = [await lines(adminA), await lines(adminB), await lines(operator)];
    expect(a.map((row) => row.tenantId)).toEqual([tenantA]);
    expect(b.map((row) => row.tenantId)).toEqual([tenantB]);
    expect(all.map((row) => row.tenantId)).toEqual([null, tenantB, tenantA]);
    // The same records as the list's, field for field.
    const list = (await (await harness.get(`/api/v1/admin/audit-logs${query}`, operator)).json()) as {
      auditLogs: unknown[];
    };
    expect(all).toEqual(list.auditLogs);
  });

  it('quotes CSV cells by RFC 4180 and keeps spreadsheet formulas from running', async () => {
    const hostile = '=HYPERLINK("https://evil.example","click")';
    await insertAudit({
      tenantId: tenantA,
      createdAt: '2003-01-01T00:00:03.000Z',
      userAgent: hostile,
      meta: { note: 'a, "quoted"\nline' },
    });
    await insertAudit({ tenantId: tenantA, createdAt: '2003-01-01T00:00:02.000Z', userAgent: '+1+2' });
    await insertAudit({ tenantId: tenantA, createdAt: '2003-01-01T00:00:01.000Z', userAgent: '@SUM(A1)' });
    await insertAudit({ tenantId: tenantA, createdAt: '2003-01-01T00:00:00.000Z', userAgent: '\t-2,3' });
    const res = await harness.get('/api/v1/admin/audit-logs/export?format=csv&from=2003-01-01&to=2003-01-01', adminA);
    // The bytes as sent (Response.text() would drop the byte order mark).
    const text = Buffer.from(await res.arrayBuffer()).toString('utf8');
    expect(
      text.startsWith(
        '\uFEFFauditLogId,resource,action,meta,userId,userEmail,ipAddress,userAgent,createdAt,tenantId\r\n',
      ),
    ).toBe(true);
    const [header, ...rows] = parseCsv(text);
    const at = (name: string) => (header as string[]).indexOf(name);
    expect(rows.map((row) => row[at('userAgent')])).toEqual([`'${hostile}`, "'+1+2", "'@SUM(A1)", "'\t-2,3"]);
    expect(JSON.parse(rows[0]?.[at('meta')] as string)).toEqual({ note: 'a, "quoted"\nline' });
    expect(text).toContain(`"'=HYPERLINK(""https://evil.example"",""click"")"`);
    expect(rows[1]?.[at('meta')]).toBe('');
  });

  it('streams a large range chunk by chunk, newest first, every row once (ties of created_at included)', async () => {
    const rows = 5_500;
    // Pairs of rows share a created_at down to the microsecond, so the keyset must order by id as well.
    await harness.dataSource.query(
      `INSERT INTO "audit"."access_logs" ("id", "created_at", "service", "method", "path", "status_code", "tenant_id")
       SELECT gen_random_uuid(), timestamptz '2004-02-01 00:00:00.000001+00' + ((n / 2) * interval '1.000003 second'),
              'chat-service', 'GET', '/api/v1/things/' || n, 200, $2
       FROM generate_series(1, $1) AS n`,
      [rows, tenantA],
    );
    await harness.dataSource.query(
      `INSERT INTO "audit"."access_logs" ("id", "created_at", "service", "method", "path", "status_code", "tenant_id")
       SELECT gen_random_uuid(), timestamptz '2004-02-01 12:00:00+00', 'chat-service', 'GET', '/other', 200, $1
       FROM generate_series(1, 10)`,
      [tenantB],
    );
    const res = await harness.get(
      '/api/v1/admin/access-logs/export?format=jsonl&from=2004-02-01&to=2004-02-01',
      adminA,
    );
    expect(res.headers.get('transfer-encoding')).toBe('chunked');
    let chunks = 0;
    let text = '';
    const decoder = new TextDecoder();
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      chunks++;
      text += decoder.decode(chunk, { stream: true });
    }
    expect(chunks).toBeGreaterThan(1);
    const records = text
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { accessLogId: string; timestamp: string; tenantId: string });
    expect(records).toHaveLength(rows);
    expect(new Set(records.map((record) => record.accessLogId)).size).toBe(rows);
    expect(records.every((record) => record.tenantId === tenantA)).toBe(true);
    const times = records.map((record) => record.timestamp);
    expect([...times].sort().reverse()).toEqual(times);

    const csv = parseCsv(
      await (
        await harness.get('/api/v1/admin/access-logs/export?format=csv&from=2004-02-01&to=2004-02-01', operator)
      ).text(),
    );
    expect(csv).toHaveLength(rows + 10 + 1);
  }, 60_000);

  it('stops reading when the client goes away, and serves the next export', async () => {
    const controller = new AbortController();
    const res = await fetch(`${harness.admin.url}/api/v1/admin/access-logs/export?format=csv&from=2004-02-01`, {
      headers: { authorization: `Bearer ${operator}` },
      signal: controller.signal,
    });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    controller.abort();
    await expect(reader.read()).rejects.toThrow();
    const next = await harness.get(
      '/api/v1/admin/audit-logs/export?format=jsonl&from=2002-05-01&to=2002-05-01',
      adminA,
    );
    expect(next.status).toBe(200);
    expect((await next.text()).split('\n').filter(Boolean)).toHaveLength(1);
  });
});
