import 'reflect-metadata';
import {
  AccessLogsModule,
  AuditAction,
  AuditTrail,
  GuardrailAlertWriter,
  GuardrailAlertsModule,
  GuardrailEngine,
  LlmLogWriter,
  LlmLogsModule,
  parseGuardrailRules,
} from '@fed/audit';
import { Scopes } from '@fed/auth';
import { GATEWAY_SCOPE } from '@fed/contracts';
import { apiKeysServiceFor } from '@fed/gateway';
import { AccessLog, type RunningService } from '@fed/server';
import { Controller, HttpCode, Module, Param, Post } from '@nestjs/common';
import { decodeJwt } from 'jose';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DataSource } from 'typeorm';
import { bootGateway } from './testing/boot-gateway';
import { type LogsHarness, bootLogsHarness } from './testing/logs-harness';
import { operatorToken } from './testing/operator-token';

/** A test-only admin action, audited as the real ones are. */
@Controller('api/v1/admin/probe-things')
class ProbeThingsController {
  @Scopes('users:manage')
  @AuditAction('probe/things', 'approve')
  @HttpCode(200)
  @Post(':thingId/approve')
  approve(@Param('thingId') thingId: string) {
    return { thingId };
  }
}

@Module({ controllers: [ProbeThingsController] })
class ProbeThingsModule {}

type Row = Record<string, unknown> & { tenantId: string | null };

/** Each log: its path, the list's member, its table. */
const LOGS = {
  audit: { path: 'audit-logs', member: 'auditLogs', table: 'audit_logs' },
  llm: { path: 'llm-logs', member: 'llmLogs', table: 'llm_logs' },
  gateway: { path: 'llm-gateway-logs', member: 'llmGatewayLogs', table: 'llm_gateway_logs' },
  access: { path: 'access-logs', member: 'accessLogs', table: 'access_logs' },
  guardrail: { path: 'guardrail-alerts', member: 'guardrailAlerts', table: 'guardrail_alerts' },
} as const;
type LogName = keyof typeof LOGS;

const tenantOf = (token: string) => (decodeJwt(token).tenant as { id: string }).id;

const engine = new GuardrailEngine(
  parseGuardrailRules({ rules: [{ name: 'codename', kind: 'blocked_terms', terms: ['falcon'], severity: 'low' }] }),
);

// Two tenants' admins and the platform operator's token (a client registered in no tenant, its token from the
// real token endpoint) read the five logs of admin-service,
// rows written by the real writers: the audit trail of admin actions, the gateway's log of calls with each
// tenant's key or token, every host's access log, the LLM log and guardrail alert writers of agent-runtime.
describe('admin logs: a logs:read token reads its own tenant only; the operator (no tenant) reads all', () => {
  let harness: LogsHarness;
  let gateway: RunningService;
  let keyPrefix: string;
  let adminA: string;
  let adminB: string;
  let operator: string;
  let tenantA: string;
  let tenantB: string;
  let llmLog: LlmLogWriter;
  let alerts: GuardrailAlertWriter;
  let rulesDir: string | undefined;

  beforeAll(async () => {
    harness = await bootLogsHarness({
      adminFeatures: [LlmLogsModule, AccessLogsModule, GuardrailAlertsModule, ProbeThingsModule],
    });
    await harness.dataSource.query(
      `INSERT INTO "identity"."tenants" ("id", "name", "type", "endpoint", "enabled", "created_at")
       VALUES ($1, 'tenant-b', 'saas', 'https://b.example.com', true, now())`,
      [randomUUID()],
    );
    adminA = await harness.signInAs('alice', 'logs:read users:manage');
    adminB = await harness.signInAs('bob', 'logs:read users:manage', 'tenant-b');
    [tenantA, tenantB] = [tenantOf(adminA), tenantOf(adminB)];
    operator = await operatorToken(harness.auth, ['logs:read', 'users:manage']);
    // A content-filter rule of stage `gateway`: its alerts are the caller's tenant's too.
    rulesDir = mkdtempSync(path.join(tmpdir(), 'fed-log-tenants-'));
    const rulesFile = path.join(rulesDir, 'rules.json');
    writeFileSync(
      rulesFile,
      JSON.stringify({
        rules: [
          { name: 'gateway-codename', kind: 'blocked_terms', terms: ['osprey'], severity: 'low', stages: ['gateway'] },
        ],
      }),
    );
    const booted = await bootGateway(harness.database.url, {
      AUTH_URL: harness.auth.config.auth.authUrl,
      GUARDRAIL_RULES_FILE: rulesFile,
    });
    [gateway, keyPrefix] = [booted.service, booted.keyPrefix];
    llmLog = new LlmLogWriter(harness.dataSource, { flushMs: 60_000 });
    alerts = new GuardrailAlertWriter(harness.dataSource, { flushMs: 60_000 });
  }, 120_000);

  afterAll(async () => {
    await llmLog?.close();
    await alerts?.close();
    await gateway?.shutdown('test');
    await harness?.close();
    if (rulesDir) rmSync(rulesDir, { recursive: true, force: true });
  });

  const list = async (log: LogName, token: string, query = '?limit=100') => {
    const res = await harness.get(`/api/v1/admin/${LOGS[log].path}${query}`, token);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown> & { total: number };
    return { rows: body[LOGS[log].member] as Row[], total: body.total };
  };

  /** Rows of the log in the database: a tenant's, or all of them. */
  const stored = async (log: LogName, tenantId?: string) => {
    const [row] = (await harness.dataSource.query(
      `SELECT count(*)::int AS "n" FROM "audit"."${LOGS[log].table}" ${tenantId ? 'WHERE "tenant_id" = $1' : ''}`,
      tenantId ? [tenantId] : [],
    )) as { n: number }[];
    return row?.n ?? 0;
  };

  const approve = (thingId: string, token: string) =>
    fetch(`${harness.admin.url}/api/v1/admin/probe-things/${thingId}/approve`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });

  async function chat(credential: string, content = 'hello', headers: Record<string, string> = {}): Promise<void> {
    const res = await fetch(`${gateway.url}/llm/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${credential}`, ...headers },
      body: JSON.stringify({ model: 'demo', messages: [{ role: 'user', content }] }),
    });
    expect(res.status).toBe(200);
    await res.text();
  }

  const keyOf = async (name: string, tenantId?: string) =>
    (
      await apiKeysServiceFor(gateway.nest.get(DataSource), { keyPrefix }).create({
        name,
        ...(tenantId ? { tenantId } : {}),
      })
    ).apiKey;

  const flushAccessLogs = () =>
    Promise.all([harness.auth, harness.admin, gateway].map((service) => service.nest.get(AccessLog).flush()));

  async function waitUntil(done: () => Promise<boolean>): Promise<void> {
    const until = Date.now() + 5000;
    while (!(await done()) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
  }

  it("gives the platform operator's integration (a client of no tenant) a token from the token endpoint with no tenant claim", () => {
    expect(decodeJwt(operator)).toMatchObject({
      iss: harness.auth.config.auth.issuer,
      azp: expect.stringMatching(/^platform-operator-/),
      realm_access: { roles: ['M2M'] },
    });
    expect(decodeJwt(operator)).not.toHaveProperty('tenant');
  });

  it("the audit trail records the acting admin's tenant (an admin action of each tenant and of the operator)", async () => {
    expect(tenantA).not.toBe(tenantB);
    expect((await approve('thing-a', adminA)).status).toBe(200);
    expect((await approve('thing-b', adminB)).status).toBe(200);
    expect((await approve('thing-operator', operator)).status).toBe(200);
    await waitUntil(async () => {
      await harness.admin.nest.get(AuditTrail).flush();
      return (await stored('audit')) >= 3;
    });
    const rows = (await harness.dataSource.query(
      `SELECT "meta"->>'thingId' AS "thing", "tenant_id" AS "tenantId" FROM "audit"."audit_logs" ORDER BY "created_at"`,
    )) as { thing: string; tenantId: string | null }[];
    expect(rows).toEqual([
      { thing: 'thing-a', tenantId: tenantA },
      { thing: 'thing-b', tenantId: tenantB },
      { thing: 'thing-operator', tenantId: null },
    ]);
  });

  it("the gateway log records the tenant of the caller's virtual key or client-credentials token", async () => {
    await chat(await keyOf('key-a', tenantA));
    await chat(await keyOf('key-b', tenantB));
    await chat(await keyOf('operator-key'));
    await chat(await harness.serviceToken([GATEWAY_SCOPE], 'tenant-b'));
    await waitUntil(async () => (await stored('gateway')) >= 4);
    const rows = (await harness.dataSource.query(
      `SELECT "metadata"->>'principal' AS "principal", "tenant_id" AS "tenantId" FROM "audit"."llm_gateway_logs" ORDER BY "created_at"`,
    )) as { principal: string; tenantId: string | null }[];
    expect(rows).toEqual([
      { principal: 'api-key:key-a', tenantId: tenantA },
      { principal: 'api-key:key-b', tenantId: tenantB },
      { principal: 'api-key:operator-key', tenantId: null },
      { principal: expect.stringMatching(/^client:etl-/), tenantId: tenantB },
    ]);
  });

  it("the gateway files a call of no tenant under the tenant it names (the agent's turns), never a tenant's call under another", async () => {
    const forTenant = (tenantId: string) => ({ 'x-client-tenant-id': tenantId });
    // The operator's key (agent-runtime's is one) names the turn's tenant; a tenant's key and token cannot.
    await chat(await keyOf('runtime-key'), 'hello', forTenant(tenantB));
    await chat(await keyOf('key-a-names-b', tenantA), 'hello', forTenant(tenantB));
    await chat(await harness.serviceToken([GATEWAY_SCOPE]), 'hello', forTenant(tenantB));
    await chat(await keyOf('runtime-key-bad-header'), 'hello', { 'x-client-tenant-id': 'not-a-tenant' });
    const principals = ['api-key:runtime-key', 'api-key:key-a-names-b', 'api-key:runtime-key-bad-header'];
    const rowsOf = async () =>
      (await harness.dataSource.query(
        `SELECT "metadata"->>'principal' AS "principal", "tenant_id" AS "tenantId" FROM "audit"."llm_gateway_logs"
          WHERE "metadata"->>'principal' = ANY($1) OR ("metadata"->>'principal' LIKE 'client:%' AND "tenant_id" = $2)
          ORDER BY "created_at"`,
        [principals, tenantA],
      )) as { principal: string; tenantId: string | null }[];
    await waitUntil(async () => (await rowsOf()).length >= 4);
    expect(await rowsOf()).toEqual([
      { principal: 'api-key:runtime-key', tenantId: tenantB },
      { principal: 'api-key:key-a-names-b', tenantId: tenantA },
      { principal: expect.stringMatching(/^client:/), tenantId: tenantA },
      { principal: 'api-key:runtime-key-bad-header', tenantId: null },
    ]);
  });

  it("the gateway's content-filter alerts record the tenant of the caller's key", async () => {
    await chat(await keyOf('key-a-filtered', tenantA), 'tell me about osprey');
    await waitUntil(async () => (await stored('guardrail')) >= 1);
    const rows = (await harness.dataSource.query(
      `SELECT "stage", "caller" LIKE 'api-key:%' AS "byKey", "tenant_id" AS "tenantId" FROM "audit"."guardrail_alerts"`,
    )) as Record<string, unknown>[];
    expect(rows).toEqual([{ stage: 'gateway', byKey: true, tenantId: tenantA }]);
  });

  it("the access log records the tenant of the request's authenticated caller, none for an anonymous one", async () => {
    const userAgent = `probe/${randomUUID()}`;
    const probe = (token?: string) =>
      fetch(`${harness.admin.url}/api/v1/admin/access-logs?limit=1`, {
        headers: { 'user-agent': userAgent, ...(token ? { authorization: `Bearer ${token}` } : {}) },
      });
    await probe(adminB);
    await probe();
    await probe(operator);
    await flushAccessLogs();
    const rows = (await harness.dataSource.query(
      `SELECT "status_code" AS "status", "tenant_id" AS "tenantId" FROM "audit"."access_logs" WHERE "user_agent" = $1 ORDER BY "created_at"`,
      [userAgent],
    )) as { status: number; tenantId: string | null }[];
    expect(rows).toEqual([
      { status: 200, tenantId: tenantB },
      { status: 401, tenantId: null },
      { status: 200, tenantId: null },
    ]);
    // A gateway call's row: the tenant of its key.
    const gatewayRows = (await harness.dataSource.query(
      `SELECT DISTINCT "tenant_id" AS "tenantId" FROM "audit"."access_logs" WHERE "service" = 'llm-gateway'`,
    )) as { tenantId: string | null }[];
    expect(gatewayRows.map((row) => row.tenantId).sort()).toEqual([tenantA, tenantB, null].sort());
  });

  it('the LLM log and guardrail alert writers record the tenant they are given (the turn of agent-runtime)', async () => {
    const counts = async (log: 'llm' | 'guardrail') => [
      await stored(log, tenantA),
      await stored(log, tenantB),
      await stored(log),
    ];
    const before = { llm: await counts('llm'), guardrail: await counts('guardrail') };
    const at = new Date();
    for (const tenantId of [tenantA, tenantB, null]) {
      llmLog.record({
        startedAt: at,
        durationMs: 5,
        service: 'agent-runtime',
        operation: 'agent_step',
        success: true,
        tenantId,
      });
      alerts.record(engine.check('input', 'falcon').findings, { service: 'agent-runtime', stage: 'input', tenantId });
    }
    await llmLog.flush();
    await alerts.flush();
    for (const log of ['llm', 'guardrail'] as const) {
      const after = await counts(log);
      expect(after.map((n, i) => n - (before[log][i] ?? 0))).toEqual([1, 1, 3]);
    }
  });

  describe.each(Object.keys(LOGS) as LogName[])('%s log', (log) => {
    it("shows each tenant's admin only that tenant's rows, and counts only those in total", async () => {
      await flushAccessLogs();
      for (const [token, tenantId] of [
        [adminA, tenantA],
        [adminB, tenantB],
      ] as const) {
        const before = await stored(log, tenantId);
        const { rows, total } = await list(log, token);
        const after = await stored(log, tenantId);
        expect(before).toBeGreaterThan(0);
        expect(rows.length).toBeGreaterThan(0);
        expect(rows.every((row) => row.tenantId === tenantId)).toBe(true);
        // The access log grows with every request (this list's row is written once it has answered).
        expect(total).toBeGreaterThanOrEqual(before);
        expect(total).toBeLessThanOrEqual(after);
        expect(rows).toHaveLength(total);
      }
    });

    it('shows the operator (a token without a tenant) every row, those of no tenant included', async () => {
      await flushAccessLogs();
      const before = await stored(log);
      const { rows, total } = await list(log, operator);
      expect(total).toBeGreaterThanOrEqual(before);
      expect(total).toBeLessThanOrEqual(await stored(log));
      const tenants = new Set(rows.map((row) => row.tenantId));
      expect(tenants).toEqual(new Set([tenantA, tenantB, null]));
    });
  });

  it("keeps another tenant's rows out of the total of a day range too (counted per tenant per day)", async () => {
    const today = new Date().toISOString().slice(0, 10);
    for (const log of ['audit', 'gateway', 'llm'] as const) {
      expect((await list(log, adminA, `?from=${today}&to=${today}`)).total).toBe(await stored(log, tenantA));
      expect((await list(log, operator, `?from=${today}&to=${today}`)).total).toBe(await stored(log));
    }
  });

  it('keeps the per-tenant totals exact when rows are deleted (retention)', async () => {
    await harness.dataSource.query(`DELETE FROM "audit"."llm_logs" WHERE "tenant_id" = $1`, [tenantB]);
    expect((await list('llm', adminB)).total).toBe(0);
    expect((await list('llm', adminA)).total).toBe(1);
    expect((await list('llm', operator)).total).toBe(2);
  });
});
