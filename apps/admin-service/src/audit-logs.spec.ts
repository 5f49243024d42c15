import 'reflect-metadata';
import { AuditAction, AuditDetails, LogRetentionJob } from '@fed/audit';
import { timeOrderedUuid } from '@fed/persistence';
import { Scopes } from '@fed/auth';
import { BadRequestException, Controller, HttpCode, Module, Param, Post } from '@nestjs/common';
import { decodeJwt } from 'jose';
import { type LogsHarness, bootLogsHarness } from './testing/logs-harness';
import { operatorToken } from './testing/operator-token';

/** A test-only admin endpoint, decorated as the real ones are. */
@Controller('api/v1/admin/probe-things')
class ProbeThingsController {
  @Scopes('users:manage')
  @AuditAction('probe/things', 'approve')
  @HttpCode(200)
  @Post(':thingId/approve')
  approve(@Param('thingId') thingId: string, @AuditDetails() audit: AuditDetails) {
    if (thingId === 'refused') throw new BadRequestException('refused');
    audit.add({ note: 'approved by the test' });
    return { thingId, approved: true };
  }
}

@Module({ controllers: [ProbeThingsController] })
class ProbeThingsModule {}

interface AuditLogList {
  auditLogs: Record<string, unknown>[];
  total: number;
  limit: number;
  page: number;
  hasMore: boolean;
}

describe('audit log (GET /v1/admin/audit-logs): every admin action, newest first', () => {
  let harness: LogsHarness;
  let adminToken: string;
  let adminId: string;
  // Reads every row, those inserted here without a tenant included (tenant scoping: log-tenants.spec.ts).
  let operator: string;

  beforeAll(async () => {
    harness = await bootLogsHarness({ adminFeatures: [ProbeThingsModule] });
    adminToken = await harness.signInAs('alice', 'logs:read users:manage');
    adminId = decodeJwt(adminToken).sub as string;
    operator = await operatorToken(harness.auth, ['logs:read']);
  }, 120_000);

  afterAll(async () => {
    await harness?.close();
  });

  const list = async (query: string, token = operator) => {
    const res = await harness.get(`/api/v1/admin/audit-logs${query}`, token);
    return { status: res.status, body: (await res.json()) as AuditLogList & { error?: { code: string } } };
  };

  const approve = (thingId: string) =>
    fetch(`${harness.admin.url}/api/v1/admin/probe-things/${thingId}/approve`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'user-agent': 'audit-test/1.0' },
    });

  /** Rows of the day range, once the trail has written `atLeast` of them. */
  async function waitForRows(query: string, atLeast: number): Promise<AuditLogList> {
    const until = Date.now() + 5000;
    for (;;) {
      const { body } = await list(query);
      if (body.total >= atLeast || Date.now() > until) return body;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async function insertRow(createdAt: string, resource = 'users/show'): Promise<string> {
    const id = timeOrderedUuid(Date.parse(createdAt));
    await harness.dataSource.query(
      `INSERT INTO "audit"."audit_logs" ("id", "resource", "action", "meta", "user_id", "created_at")
       VALUES ($1, $2, 'update', NULL, 'someone', $3)`,
      [id, resource, createdAt],
    );
    return id;
  }

  const today = () => new Date().toISOString().slice(0, 10);

  it('records an admin action with its resource, action, meta, actor, IP and user agent', async () => {
    const before = Date.now();
    expect((await approve('thing-1')).status).toBe(200);
    const { auditLogs } = await waitForRows(`?from=${today()}&to=${today()}`, 1);
    const row = auditLogs.find((log) => (log.meta as { thingId?: string } | null)?.thingId === 'thing-1');
    expect(row).toEqual({
      auditLogId: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      resource: 'probe/things',
      action: 'approve',
      meta: { thingId: 'thing-1', note: 'approved by the test' },
      userId: adminId,
      // The access token carries no e-mail claim.
      userEmail: null,
      ipAddress: expect.stringMatching(/127\.0\.0\.1$/),
      userAgent: 'audit-test/1.0',
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      tenantId: (decodeJwt(adminToken).tenant as { id: string }).id,
    });
    expect(Date.parse(row?.createdAt as string)).toBeGreaterThanOrEqual(before - 1000);
  });

  it('records nothing for an action that was refused', async () => {
    expect((await approve('refused')).status).toBe(400);
    expect((await approve('thing-2')).status).toBe(200);
    const { auditLogs } = await waitForRows(`?from=${today()}&to=${today()}`, 2);
    const things = auditLogs.map((log) => (log.meta as { thingId?: string } | null)?.thingId);
    expect(things).toContain('thing-2');
    expect(things).not.toContain('refused');
  });

  it('keeps an action whose parameter holds characters PostgreSQL cannot store (NUL)', async () => {
    expect((await approve('nul%00byte')).status).toBe(200);
    const { auditLogs } = await waitForRows(`?from=${today()}&to=${today()}`, 3);
    expect(auditLogs.map((log) => (log.meta as { thingId?: string } | null)?.thingId)).toContain('nul\uFFFDbyte');
  });

  describe('from and to (UTC days, to inclusive) and the pagination envelope', () => {
    const ids: Record<string, string> = {};
    // Days a month ago, well within the retention, whenever the test runs.
    const day = (offset: number) => new Date(Date.now() - (30 - offset) * 86_400_000).toISOString().slice(0, 10);
    const [d9, d10, d11] = [day(-1), day(0), day(1)];

    beforeAll(async () => {
      ids.before = await insertRow(`${d9}T23:59:59.999Z`);
      ids.first = await insertRow(`${d10}T00:00:00.000Z`);
      ids.last = await insertRow(`${d10}T23:59:59.999Z`);
      ids.next = await insertRow(`${d11}T00:00:00.000Z`);
    });

    it('lists the rows of the days from..to, the whole of the day `to` included, newest first', async () => {
      const oneDay = await list(`?from=${d10}&to=${d10}`);
      expect(oneDay.status).toBe(200);
      expect(oneDay.body.auditLogs.map((log) => log.auditLogId)).toEqual([ids.last, ids.first]);
      expect(oneDay.body).toMatchObject({ total: 2, limit: 25, page: 1, hasMore: false });

      const twoDays = await list(`?from=${d10}&to=${d11}`);
      expect(twoDays.body.auditLogs.map((log) => log.auditLogId)).toEqual([ids.next, ids.last, ids.first]);
      expect((await list(`?to=${d9}`)).body.auditLogs.map((log) => log.auditLogId)).toEqual([ids.before]);
      expect((await list(`?from=${d11}&to=${d11}`)).body.auditLogs.map((log) => log.auditLogId)).toEqual([ids.next]);
    });

    it('pages with limit and page: hasMore is page * limit < total', async () => {
      const second = await list(`?from=${d9}&to=${d11}&limit=1&page=2`);
      expect(second.body).toMatchObject({ total: 4, limit: 1, page: 2, hasMore: true });
      expect(second.body.auditLogs.map((log) => log.auditLogId)).toEqual([ids.last]);
      const last = await list(`?from=${d9}&to=${d11}&limit=3&page=2`);
      expect(last.body).toMatchObject({ total: 4, limit: 3, page: 2, hasMore: false });
      expect(last.body.auditLogs.map((log) => log.auditLogId)).toEqual([ids.before]);
      const beyond = await list(`?from=${d9}&to=${d11}&page=9`);
      expect(beyond.body).toMatchObject({ auditLogs: [], total: 4, page: 9, hasMore: false });
    });

    it('lists every day without from and to', async () => {
      const all = await list('?limit=100');
      expect(all.body.auditLogs.map((log) => log.auditLogId)).toEqual(
        expect.arrayContaining([ids.before, ids.first, ids.last, ids.next]),
      );
      const times = all.body.auditLogs.map((log) => Date.parse(log.createdAt as string));
      expect(times).toEqual([...times].sort((a, b) => b - a));
    });
  });

  it.each([
    ['from', 'from=2026-13-01'],
    ['to', 'to=2026-02-30'],
    ['to', 'from=2026-03-02&to=2026-03-01'],
    ['from', 'from=2026-3-1'],
    ['from', 'from=20260301'],
    ['limit', 'limit=0'],
    ['limit', 'limit=101'],
    ['limit', 'limit=ten'],
    ['limit', 'limit=1.5'],
    ['page', 'page=0'],
    ['page', 'page=-1'],
    ['page', 'page=two'],
  ])('refuses a bad %s with 400 (%s)', async (_name, query) => {
    const { status, body } = await list(`?${query}`);
    expect(status).toBe(400);
    expect(body.error?.code).toBe('invalid_parameter');
  });

  it('refuses a token without logs:read with 403, and no token with 401', async () => {
    expect((await list('', await harness.serviceToken(['users:read']))).status).toBe(403);
    expect((await fetch(`${harness.admin.url}/api/v1/admin/audit-logs`)).status).toBe(401);
    expect((await list('', await harness.serviceToken(['logs:read']))).status).toBe(200);
  });

  describe('retention (AUDIT_LOG_RETENTION_DAYS 365, GATEWAY_LOG_RETENTION_DAYS 90)', () => {
    it('deletes only the rows older than their log kind keeps', async () => {
      const now = Date.now();
      const daysAgo = (days: number, extraMs = 0) => new Date(now - days * 86_400_000 + extraMs).toISOString();
      const oldAudit = await insertRow(daysAgo(365, -60_000), 'retention/old');
      const keptAudit = await insertRow(daysAgo(365, 60_000), 'retention/kept');
      const gatewayRow = (createdAt: string) => {
        const id = timeOrderedUuid(Date.parse(createdAt));
        return harness.dataSource
          .query(`INSERT INTO "audit"."llm_gateway_logs" ("id", "created_at", "model_name") VALUES ($1, $2, 'demo')`, [
            id,
            createdAt,
          ])
          .then(() => id);
      };
      const oldGateway = await gatewayRow(daysAgo(90, -60_000));
      const keptGateway = await gatewayRow(daysAgo(90, 60_000));

      const deleted = await harness.admin.nest.get(LogRetentionJob).run(now);
      expect(deleted).toMatchObject({ audit: 1, gateway: 1, llm: 0, access: 0 });

      const ids = async (table: string) =>
        ((await harness.dataSource.query(`SELECT "id" FROM "audit".${table}`)) as { id: string }[]).map((r) => r.id);
      const audit = await ids('"audit_logs"');
      expect(audit).toContain(keptAudit);
      expect(audit).not.toContain(oldAudit);
      const gateway = await ids('"llm_gateway_logs"');
      expect(gateway).toEqual(expect.arrayContaining([keptGateway]));
      expect(gateway).not.toContain(oldGateway);
      // The lists' totals follow the deletions.
      expect((await list('')).body.total).toBe(audit.length);
      const gatewayList = await harness.get('/api/v1/admin/llm-gateway-logs', operator);
      expect(((await gatewayList.json()) as { total: number }).total).toBe(gateway.length);
    });
  });
});
