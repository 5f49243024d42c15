import 'reflect-metadata';
import {
  type GuardrailAlertContext,
  GuardrailAlertWriter,
  GuardrailAlertsModule,
  GuardrailEngine,
  LogRetentionJob,
  parseGuardrailRules,
} from '@fed/audit';
import { type LogsHarness, bootLogsHarness } from './testing/logs-harness';

interface GuardrailAlertList {
  guardrailAlerts: Record<string, unknown>[];
  total: number;
  limit: number;
  page: number;
  hasMore: boolean;
  error?: { code: string; message: string };
}

const engine = new GuardrailEngine(
  parseGuardrailRules({
    rules: [
      { name: 'cards', kind: 'pii', detectors: ['payment_card'], severity: 'high', stages: ['input', 'output'] },
      { name: 'codename', kind: 'blocked_terms', terms: ['falcon'], severity: 'medium', action: 'block' },
    ],
  }),
);

const tenantOf = (token: string): string | undefined =>
  (JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString()) as { tenant?: { id: string } }).tenant
    ?.id;

// Alerts written by GuardrailAlertWriter as agent-runtime writes them, read by admin-service with tokens
// of the real realm (the chat stack's end-to-end check is apps/platform/src/guardrail-alerts-e2e.spec.ts).
describe('guardrail alerts (GET /v1/admin/guardrail-alerts)', () => {
  let harness: LogsHarness;
  let token: string;
  let tenantId: string;
  let writer: GuardrailAlertWriter;
  const conversationId = crypto.randomUUID();

  beforeAll(async () => {
    harness = await bootLogsHarness({ adminFeatures: [GuardrailAlertsModule] });
    token = await harness.signInAs('auditor', 'logs:read');
    tenantId = tenantOf(token) as string;
    writer = new GuardrailAlertWriter(harness.dataSource, { flushMs: 60_000 });
  }, 120_000);

  afterAll(async () => {
    await writer?.close();
    await harness?.close();
  });

  const list = async (query = '', as = token) => {
    const res = await harness.get(`/api/v1/admin/guardrail-alerts${query}`, as);
    return { status: res.status, body: (await res.json()) as GuardrailAlertList };
  };

  const record = (text: string, context: Partial<GuardrailAlertContext> = {}, at = new Date()) =>
    writer.record(
      engine.check(context.stage ?? 'input', text).findings,
      {
        service: 'agent-runtime',
        stage: 'input',
        conversationId,
        tenantId,
        userId: 'u-1',
        messageId: 'm-1',
        ...context,
      },
      at,
    );

  it('returns every field of an alert, newest first, with the envelope; the card number masked', async () => {
    expect(tenantId).toEqual(expect.any(String));
    record('my card is 4111 1111 1111 1111', {}, new Date(Date.now() - 1000));
    record('tell me about falcon');
    await writer.flush();
    const { status, body } = await list();
    expect(status).toBe(200);
    expect(body).toMatchObject({ total: 2, limit: 25, page: 1, hasMore: false });
    const [blocked, card] = body.guardrailAlerts;
    expect(Object.keys(card as object).sort()).toEqual(
      [
        'guardrailAlertId',
        'createdAt',
        'service',
        'stage',
        'rule',
        'ruleType',
        'severity',
        'action',
        'matchCount',
        'excerpt',
        'conversationId',
        'messageId',
        'userId',
        'tenantId',
        'caller',
      ].sort(),
    );
    expect(card).toMatchObject({
      guardrailAlertId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      service: 'agent-runtime',
      stage: 'input',
      rule: 'cards',
      ruleType: 'pii',
      severity: 'high',
      action: 'alert',
      matchCount: 1,
      excerpt: 'my card is [payment_card]',
      conversationId,
      messageId: 'm-1',
      userId: 'u-1',
      tenantId,
      caller: null,
    });
    expect(blocked).toMatchObject({ rule: 'codename', ruleType: 'blocked_terms', action: 'block', severity: 'medium' });
  });

  it('keeps no excerpt of a private-mode turn', async () => {
    record('card 5555555555554444 in private', { withoutContents: true, conversationId: crypto.randomUUID() });
    await writer.flush();
    const [newest] = (await list('?limit=1')).body.guardrailAlerts;
    expect(newest).toMatchObject({ rule: 'cards', excerpt: null });
  });

  it('filters by severity, rule and conversationId; the total counts the filtered rows', async () => {
    expect((await list('?severity=high')).body).toMatchObject({ total: 2 });
    expect((await list('?severity=low')).body).toMatchObject({ total: 0, guardrailAlerts: [] });
    const byRule = await list('?rule=codename');
    expect(byRule.body.total).toBe(1);
    expect(byRule.body.guardrailAlerts[0]).toMatchObject({ rule: 'codename' });
    const byConversation = await list(`?conversationId=${conversationId.toUpperCase()}&severity=high`);
    expect(byConversation.body.total).toBe(1);
    expect(byConversation.body.guardrailAlerts[0]).toMatchObject({ conversationId, rule: 'cards' });
  });

  it('pages with limit and page, and lists only the days from..to', async () => {
    record('card 4111111111111111, old', {}, new Date(Date.now() - 10 * 86_400_000));
    await writer.flush();
    const tenDaysAgo = new Date(Date.now() - 10 * 86_400_000).toISOString().slice(0, 10);
    const today = new Date().toISOString().slice(0, 10);
    expect((await list(`?from=${tenDaysAgo}&to=${tenDaysAgo}`)).body).toMatchObject({ total: 1 });
    expect((await list(`?from=${today}&to=${today}`)).body).toMatchObject({ total: 3 });
    expect((await list('?limit=2&page=2')).body).toMatchObject({ total: 4, limit: 2, page: 2, hasMore: false });
    expect((await list('?limit=2&page=2')).body.guardrailAlerts).toHaveLength(2);
  });

  it("shows a caller only their tenant's alerts (counted per tenant)", async () => {
    record('card 4111111111111111 elsewhere', { tenantId: 'another-tenant' });
    await writer.flush();
    const mine = await list('?limit=100');
    expect(mine.body.total).toBe(4);
    expect(mine.body.guardrailAlerts.every((alert) => alert.tenantId === tenantId)).toBe(true);
    expect((await list('?rule=cards')).body.total).toBe(3);
    const service = await harness.serviceToken(['logs:read']);
    expect(tenantOf(service)).toBe(tenantId);
    expect((await list('?limit=100', service)).body.total).toBe(4);
  });

  it('keeps the totals exact when writers insert at the same time (day counts in the inserting statement)', async () => {
    const before = (await list()).body.total;
    const writers = [1, 2, 3].map(() => new GuardrailAlertWriter(harness.dataSource, { flushMs: 60_000 }));
    for (const concurrent of writers) {
      for (let i = 0; i < 20; i++) {
        concurrent.record(engine.check('input', 'card 4111111111111111').findings, {
          service: 'agent-runtime',
          stage: 'input',
          tenantId,
        });
      }
    }
    await Promise.all(writers.map((concurrent) => concurrent.close()));
    expect((await list()).body.total).toBe(before + 60);
    await harness.dataSource.query(`DELETE FROM "audit"."guardrail_alerts" WHERE "conversation_id" IS NULL`);
    expect((await list()).body.total).toBe(before);
  });

  it.each([
    'severity=urgent',
    'severity=',
    'rule=has%20space',
    `rule=${'r'.repeat(65)}`,
    'rule=a%00b',
    'conversationId=not-a-uuid',
    'from=2026-02-30',
    'from=2026-03-02&to=2026-03-01',
    'limit=101',
    'page=0',
  ])('refuses bad query values with 400 invalid_parameter (%s)', async (query) => {
    const { status, body } = await list(`?${query}`);
    expect(status).toBe(400);
    expect(body.error?.code).toBe('invalid_parameter');
  });

  it('refuses a token without logs:read with 403, and no token with 401', async () => {
    expect((await list('', await harness.serviceToken(['users:read']))).status).toBe(403);
    expect((await fetch(`${harness.admin.url}/api/v1/admin/guardrail-alerts`)).status).toBe(401);
  });

  it('deletes alerts older than GUARDRAIL_ALERT_RETENTION_DAYS (default 365) and keeps the totals exact', async () => {
    record('card 4111111111111111, ancient', {}, new Date(Date.now() - 366 * 86_400_000));
    await writer.flush();
    expect((await list()).body.total).toBe(5);
    const deleted = await harness.admin.nest.get(LogRetentionJob).run();
    expect(deleted.guardrail).toBe(1);
    expect((await list()).body.total).toBe(4);
    expect((await list('?severity=high')).body.total).toBe(3);
  });
});
