import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import OpenAI from 'openai';
import { type Browser, type Page } from 'playwright-core';
import { stringify } from 'yaml';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import {
  type ProcessHandle,
  ScriptedUpstream,
  buildDist,
  buildWeb,
  cleanEnv,
  freePort,
  signIn,
  startProcess,
} from '@fed/testing';
import { axeContext, describeWithChromium, expectNoAxeViolations, launchChromium } from '@fed/sign-in/testing';
import { type DemoCredentials } from './demo-realm';
import type { PageElement } from './testing/page-globals';
import { htmlLangDir, signInToWebApp, submitLoginForm, tabTo } from './testing/web-app';

interface BoxElement extends PageElement {
  scrollTop: number;
  scrollHeight: number;
  closest(selector: string): BoxElement | null;
}
declare const document: { documentElement: PageElement; activeElement: BoxElement | null };
declare const localStorage: { getItem(key: string): string | null };

const main = 'dist/apps/platform/src/main.js';
const cli = 'dist/apps/platformctl/src/main.js';
const PASSWORD = 'a long passphrase for the console';
/** Audit rows put straight into the database for the virtualized table, in March 2025 (20 s apart). */
const BULK = 100_000;
const BULK_FROM = '2025-03-01';
const BULK_TO = '2025-03-31';
/** Rows are written off the request path (flushed every 0.5-1 s): looked for until this long after the event. */
const WRITE_DELAY_MS = 25_000;
const DAY_MS = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

type LogRecord = Record<string, unknown>;

interface UsageFigures {
  requests: number;
  totalTokens: number;
  costUsd: string;
}

interface UsageReport {
  groups: (UsageFigures & { group: string | null })[];
  totals: UsageFigures;
}

/** The audit log's record fields, in the list's order (the CSV header). */
const AUDIT_FIELDS = [
  'auditLogId',
  'resource',
  'action',
  'meta',
  'userId',
  'userEmail',
  'ipAddress',
  'userAgent',
  'createdAt',
  'tenantId',
];

/**
 * Issue 38, "The screens: Logs" and "Usage": the demo administrator of `npm start` (a platform operator) reads the
 * five logs and the gateway's usage in the console, over rows the test made through the platform first (a sign-in,
 * a chat turn through the scripted model, an admin action, gateway calls with virtual keys of two tenants) and
 * 10^5 audit rows put straight into its PostgreSQL for the virtualized table.
 */
describeWithChromium('console-logs-usage-e2e.spec')('the console: logs and usage', () => {
  let database: TestDatabase;
  let dataDir: string;
  let base: string;
  let upstream: ScriptedUpstream;
  let platform: ProcessHandle;
  let browser: Browser;
  let demo: DemoCredentials;
  let logsToken: string;
  let defaultTenantId: string;
  let acmeTenantId: string;
  let conversationId: string;
  /** The range that holds every row the test made (yesterday to tomorrow: the run may cross midnight UTC). */
  let recent: { from: string; to: string };
  const keys: Record<'alpha' | 'beta' | 'acme', { id: string; apiKey: string }> = {} as never;
  let acmeGatewayRowId: string;

  async function platformctl(args: string[]): Promise<string> {
    const handle = startProcess(cli, args, cleanEnv({ DATA_DIR: dataDir, DATABASE_URL: database.url }));
    const code = await handle.exited(60_000);
    if (code !== 0) throw new Error(`platformctl ${args.join(' ')}: ${code}\n${handle.output()}`);
    return handle.output();
  }

  async function createKey(name: string, tenant: string): Promise<{ id: string; apiKey: string }> {
    const output = await platformctl(['apikeys', 'create', '--name', name, '--tenant', tenant]);
    return {
      apiKey: /api_key: (fed_[A-Za-z0-9_-]{43})/.exec(output)?.[1] as string,
      id: /id: ([0-9a-f-]{36})/.exec(output)?.[1] as string,
    };
  }

  /** A log list's page through the admin API (the demo tenant's `logs:read`), as the screen asks for it. */
  async function listLog(log: string, query: Record<string, string> = {}, token = logsToken) {
    const res = await fetch(`${base}/api/v1/admin/${log}?${new URLSearchParams({ limit: '100', ...query })}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(200);
    return (await res.json()) as Record<string, unknown> & { total: number };
  }

  /** Waits for the rows of `log` that `match` accepts to be written (the writers flush in the background). */
  async function rowsOf(log: string, member: string, match: (row: LogRecord) => boolean): Promise<LogRecord[]> {
    const since = Date.now();
    for (;;) {
      const rows = ((await listLog(log))[member] as LogRecord[]).filter(match);
      if (rows.length > 0) return rows;
      if (Date.now() - since > WRITE_DELAY_MS) {
        throw new Error(
          `no ${log} row in ${WRITE_DELAY_MS} ms; the platform printed:\n${platform.output().slice(-4000)}`,
        );
      }
      await sleep(250);
    }
  }

  /** A signed-in page of the web app whose admin API calls' bearer token is kept. */
  async function consolePage(user: { login: string; password: string }, locale = 'en') {
    const { context, page } = await signInToWebApp(browser, base, user, { locale, acceptDownloads: true });
    let token = '';
    page.on('request', (request) => {
      const header = request.headers()['authorization'];
      if (header?.startsWith('Bearer ') && new URL(request.url()).pathname.startsWith('/api/v1/admin/')) {
        token = header.slice('Bearer '.length);
      }
    });
    return { context, page, token: () => token };
  }

  const table = (page: Page, log: string) => page.getByRole('region', { name: `${log} (scroll with the arrow keys)` });
  const shownIds = (page: Page, log: string) =>
    table(page, log)
      .locator('tbody tr[data-row-id]')
      .evaluateAll((rows) => rows.map((row) => (row as PageElement).getAttribute('data-row-id')));

  async function applyRange(page: Page, from: string, to: string) {
    const form = page.getByRole('form', { name: 'Filters' });
    await form.getByLabel('From', { exact: true }).fill(from);
    await form.getByLabel('To', { exact: true }).fill(to);
    await form.getByRole('button', { name: 'Apply' }).click();
  }

  beforeAll(async () => {
    buildDist();
    buildWeb();
    upstream = await ScriptedUpstream.start();
    database = await createTestDatabase();
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'fed-console-logs-'));
    // Two priced models on the scripted upstream: the agent's and a second one, so usage has spend per model.
    const routingFile = path.join(dataDir, 'routing.yaml');
    writeFileSync(
      routingFile,
      stringify({
        providers: [{ name: 'scripted', type: 'openai', baseUrl: `${upstream.url}/v1`, apiKey: 'sk-upstream' }],
        models: [
          {
            name: 'agent-model',
            pricing: { input: 3, output: 15 },
            deployments: [{ provider: 'scripted', model: 'upstream-model' }],
          },
          {
            name: 'second-model',
            pricing: { input: 10, output: 30 },
            deployments: [{ provider: 'scripted', model: 'upstream-model' }],
          },
        ],
        retries: { attempts: 1 },
      }),
    );
    const port = await freePort();
    base = `http://localhost:${port}`;
    platform = startProcess(
      main,
      [],
      cleanEnv({
        PORT: String(port),
        DATA_DIR: dataDir,
        DATABASE_URL: database.url,
        LLM_GATEWAY_ROUTING_FILE: routingFile,
        AGENT_MODEL: 'agent-model',
        AGENT_MODEL_HIGH_PERFORMANCE: 'agent-model',
      }),
    );
    await platform.waitForOutput(/Press Ctrl-C to stop/, 60_000);
    recent = { from: dayOf(Date.now() - DAY_MS), to: dayOf(Date.now() + DAY_MS) };
    demo = JSON.parse(readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8')) as DemoCredentials;
    const realm = path.join(dataDir, 'console-logs.json');
    writeFileSync(
      realm,
      JSON.stringify({
        realm: 'federation',
        tenants: [{ name: 'acme', type: 'saas', endpoint: 'https://acme.example.com' }],
        users: [
          // The tenant's administrator, not a platform operator.
          { email: 'tara@example.com', username: 'tara', displayName: 'Tara', role: 'admin', password: PASSWORD },
          { email: 'hal@example.com', username: 'hal', displayName: 'Hal', password: PASSWORD },
          { email: 'frank@acme.example.com', displayName: 'Frank', role: 'admin', tenant: 'acme', password: PASSWORD },
        ],
      }),
    );
    // The realm (then acme's key) and the demo tenant's two keys at once: each platformctl run is a process start.
    [keys.acme, keys.alpha, keys.beta] = await Promise.all([
      platformctl(['realm', 'import', realm]).then(() => createKey('acme-bot', 'acme')),
      createKey('alpha-bot', 'default'),
      createKey('beta-bot', 'default'),
    ]);
    const tenants = (await database.dataSource.query(
      `SELECT "id"::text AS "id", "name" FROM "identity"."tenants"`,
    )) as {
      id: string;
      name: string;
    }[];
    defaultTenantId = tenants.find((tenant) => tenant.name === 'default')!.id;
    acmeTenantId = tenants.find((tenant) => tenant.name === 'acme')!.id;

    // The demo service account's logs:read (the demo tenant's), to read back what the screens show.
    const res = await fetch(`${base}/federation/auth/v1/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${demo.service.clientId}:${demo.service.clientSecret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials&scope=logs:read master:manage',
    });
    logsToken = ((await res.json()) as { access_token: string }).access_token;

    // An admin action: an audit row (and its access row).
    const created = await fetch(`${base}/api/v1/admin/organizations`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${logsToken}`,
        'content-type': 'application/json',
        'user-agent': 'console-logs-e2e',
      },
      body: JSON.stringify({ code: 'console-logs', label: 'Console logs' }),
    });
    expect(created.status).toBe(201);

    // A sign-in, then a chat turn through the scripted model naming a payment card: LLM, gateway and access rows
    // and a guardrail alert (the built-in PII rules).
    const tokens = await signIn({
      serviceUrl: base,
      issuer: `${base}/realms/federation`,
      clientId: demo.app.clientId,
      clientSecret: demo.app.clientSecret,
      redirectUri: demo.app.redirectUri,
      login: demo.user.login,
      password: demo.user.password,
      scope: 'openid chat:exec chat:history',
    });
    const turn = await fetch(`${base}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'federation-agent',
        stream: true,
        agentMode: false,
        messages: [{ role: 'user', content: 'Please charge my card 4111 1111 1111 1111 for the order.' }],
      }),
    });
    expect(turn.status).toBe(200);
    conversationId = turn.headers.get('x-conversation-id') as string;
    expect(await turn.text()).toContain('data: [DONE]');

    // Gateway calls with the virtual keys: two of the demo tenant (two models), one of acme.
    const call = (key: string, model: string) =>
      new OpenAI({ baseURL: `${base}/llm/v1`, apiKey: key, maxRetries: 0 }).chat.completions.create({
        model,
        messages: [{ role: 'user', content: `Hello from ${model}` }],
      });
    await call(keys.alpha.apiKey, 'agent-model');
    await call(keys.alpha.apiKey, 'second-model');
    await call(keys.beta.apiKey, 'second-model');
    await call(keys.acme.apiKey, 'agent-model');

    // The volume: 10^5 audit rows of the demo tenant, numbered oldest first, straight into the log's table (its
    // triggers count them per day as they count the service's own inserts).
    await database.dataSource.query(
      `INSERT INTO "audit"."audit_logs"
         ("id", "resource", "action", "meta", "user_id", "user_email", "ip_address", "user_agent", "created_at", "tenant_id")
       SELECT gen_random_uuid(), 'bulk/seed', 'create', jsonb_build_object('n', n), 'bulk-user',
              'bulk-' || lpad(n::text, 6, '0') || '@example.com', '192.0.2.1', 'bulk', $1::timestamptz + n * interval '20 seconds', $2
         FROM generate_series(0, $3::int - 1) AS n`,
      [`${BULK_FROM}T00:00:00Z`, defaultTenantId, BULK],
    );

    // Every row written before the tests read them.
    await rowsOf('audit-logs', 'auditLogs', (row) => row.resource === 'config/organizations/create');
    await rowsOf('llm-logs', 'llmLogs', (row) => row.conversationId === conversationId);
    await rowsOf('guardrail-alerts', 'guardrailAlerts', (row) => row.conversationId === conversationId);
    await rowsOf('access-logs', 'accessLogs', (row) => row.path === '/api/v1/admin/organizations');
    await rowsOf(
      'llm-gateway-logs',
      'llmGatewayLogs',
      (row) => row.virtualKeyId === keys.beta.id && row.modelName === 'second-model',
    );
    for (const since = Date.now(); ; await sleep(250)) {
      const [row] = (await database.dataSource.query(
        `SELECT "id"::text AS "id" FROM "audit"."llm_gateway_logs" WHERE "tenant_id" = $1`,
        [acmeTenantId],
      )) as { id: string }[];
      if (row) {
        acmeGatewayRowId = row.id;
        break;
      }
      if (Date.now() - since > WRITE_DELAY_MS) throw new Error("acme's gateway row was not written");
    }
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    platform?.child.kill('SIGKILL');
    await upstream?.close();
    await database?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('shows each of the five logs in its tab, the rows the platform wrote, and narrows them by a UTC date range', async () => {
    const { context, page } = await consolePage(demo.user);
    await page.getByRole('link', { name: 'Console' }).click();
    await page.getByRole('link', { name: 'Logs' }).click();
    await page.getByRole('heading', { name: 'Logs', level: 2 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/logs');
    expect(await page.getByRole('tab', { name: 'Audit log' }).getAttribute('aria-selected')).toBe('true');

    // Audit: every row newest first, the recent ones then the bulk rows; the screen's first rows are the API's.
    const audit = await listLog('audit-logs');
    await page.getByText(`${new Intl.NumberFormat('en').format(audit.total)} rows`, { exact: true }).waitFor();
    expect(audit.total).toBeGreaterThan(BULK);
    await table(page, 'Audit log').locator('tbody tr[data-row-id]').first().waitFor();
    const firstIds = await shownIds(page, 'Audit log');
    expect(firstIds.slice(0, 5)).toEqual((audit.auditLogs as LogRecord[]).slice(0, 5).map((row) => row.auditLogId));
    await table(page, 'Audit log').getByRole('cell', { name: 'config/organizations/create' }).waitFor();

    // The range narrows the list: the recent days hold the test's rows and none of the bulk rows; a past range none.
    await applyRange(page, recent.from, recent.to);
    const recentAudit = await listLog('audit-logs', recent);
    expect(recentAudit.total).toBeLessThan(100);
    await page.getByText(`${recentAudit.total} rows`, { exact: true }).waitFor();
    await table(page, 'Audit log').getByRole('cell', { name: 'config/organizations/create' }).waitFor();
    expect(await table(page, 'Audit log').getByRole('cell', { name: 'bulk/seed' }).count()).toBe(0);
    // A new admin action, then Apply with the same range: the list is read anew, the new row first.
    const again = await fetch(`${base}/api/v1/admin/organizations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${logsToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ code: 'console-logs-2', label: 'Console logs again' }),
    });
    expect(again.status).toBe(201);
    const before = new Set((recentAudit.auditLogs as LogRecord[]).map((row) => row.auditLogId));
    const [newest] = await rowsOf(
      'audit-logs',
      'auditLogs',
      (row) => row.resource === 'config/organizations/create' && !before.has(row.auditLogId),
    );
    await applyRange(page, recent.from, recent.to);
    await page.getByText(`${recentAudit.total + 1} rows`, { exact: true }).waitFor();
    await table(page, 'Audit log')
      .locator(`tbody tr[aria-rowindex="2"][data-row-id="${String(newest!.auditLogId)}"]`)
      .waitFor();
    await applyRange(page, '2020-01-01', '2020-01-02');
    await page.getByText('No rows in this range.').waitFor();
    expect(await page.getByRole('region', { name: /scroll with the arrow keys/ }).count()).toBe(0);
    await page.getByRole('button', { name: 'Clear' }).click();
    await table(page, 'Audit log').locator('tbody tr[data-row-id]').first().waitFor();

    // The other logs, each with the rows the chat turn, the gateway calls and the requests made.
    const tabs: [string, string, string, string, (row: LogRecord) => boolean][] = [
      ['LLM log', 'llm-logs', 'llmLogs', 'llmLogId', (row) => row.conversationId === conversationId],
      [
        'Gateway log',
        'llm-gateway-logs',
        'llmGatewayLogs',
        'llmGatewayLogId',
        (row) => row.virtualKeyId === keys.beta.id,
      ],
      ['Access log', 'access-logs', 'accessLogs', 'accessLogId', (row) => row.path === '/api/v1/admin/organizations'],
      [
        'Guardrail alerts',
        'guardrail-alerts',
        'guardrailAlerts',
        'guardrailAlertId',
        (row) => row.conversationId === conversationId,
      ],
    ];
    for (const [name, log, member, idField, match] of tabs) {
      await page.getByRole('tab', { name }).click();
      expect(await page.getByRole('tab', { name }).getAttribute('aria-selected')).toBe('true');
      const rows = table(page, name);
      await rows.locator('tbody tr[data-row-id]').first().waitFor();
      // The API's list, read after the screen's (the access log grows with every request, the screen's too).
      const listed = (await listLog(log))[member] as LogRecord[];
      const at = listed.findIndex(match);
      expect(at).toBeGreaterThanOrEqual(0);
      // Scrolled to where the row is (only the rows in view are laid out).
      await rows.evaluate(
        (element, top) => {
          (element as BoxElement).scrollTop = top;
        },
        Math.max(0, at - 3) * 32,
      );
      await rows.locator(`tbody tr[data-row-id="${String(listed[at]![idField])}"]`).waitFor();
    }
    // The guardrail alert's masked excerpt, never the card number.
    const alerts = table(page, 'Guardrail alerts');
    await alerts.getByRole('cell', { name: 'high' }).first().waitFor();
    expect(await alerts.textContent()).not.toContain('4111');
    // The alerts' own filters: a severity the card's rule does not have shows none; its own shows the alert.
    const filters = page.getByRole('form', { name: 'Filters' });
    await filters.getByLabel('Severity').selectOption('low');
    await filters.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('No rows in this range.').waitFor();
    await filters.getByLabel('Severity').selectOption('high');
    await filters.getByLabel('Rule').fill('pii-payment-card');
    await filters.getByRole('button', { name: 'Apply' }).click();
    await alerts.locator('tbody tr[data-row-id]').first().waitFor();
    expect(new Set(await alerts.locator('tbody td[data-column="rule"]').allTextContents())).toEqual(
      new Set(['pii-payment-card']),
    );
    await context.close();
  }, 90_000);

  it('keeps the chosen columns after a reload, shows a row in a dialog that Escape closes, and exports the range as CSV and JSON lines', async () => {
    const { context, page } = await consolePage(demo.user);
    await page.goto(`${base}/console/logs`);
    const audit = table(page, 'Audit log');
    await audit.locator('tbody tr[data-row-id]').first().waitFor();
    const header = () => audit.locator('thead th').allTextContents();
    expect(await header()).toEqual(['Time', 'userEmail', 'resource', 'action', 'ipAddress']);

    await page.locator('summary', { hasText: 'Columns' }).click();
    await page.getByRole('checkbox', { name: 'userAgent' }).check();
    await page.getByRole('checkbox', { name: 'ipAddress' }).uncheck();
    expect(await header()).toEqual(['Time', 'userEmail', 'resource', 'action', 'userAgent']);
    await page.reload();
    await audit.locator('tbody tr[data-row-id]').first().waitFor();
    expect(await header()).toEqual(['Time', 'userEmail', 'resource', 'action', 'userAgent']);
    expect(
      JSON.parse((await page.evaluate(() => localStorage.getItem('fed.console.logs.columns.audit'))) ?? ''),
    ).toEqual(['userEmail', 'resource', 'action', 'userAgent']);
    // Each log keeps its own choice: the LLM log still shows its defaults.
    await page.getByRole('tab', { name: 'LLM log' }).click();
    await table(page, 'LLM log').locator('tbody tr[data-row-id]').first().waitFor();
    expect(await table(page, 'LLM log').locator('thead th').allTextContents()).toEqual([
      'Time',
      'service',
      'operation',
      'durationMs',
      'success',
      'conversationId',
    ]);
    await page.getByRole('tab', { name: 'Audit log' }).click();

    // A row's every field; Escape closes the dialog and the focus is back on the row's button.
    await applyRange(page, recent.from, recent.to);
    // The first admin action's row (the one sent with its own user agent, a column shown now).
    const row = audit.locator('tbody tr[data-row-id]', {
      has: page.getByRole('cell', { name: 'console-logs-e2e', exact: true }),
    });
    const rowId = await row.getAttribute('data-row-id');
    await row.getByRole('button').click();
    const dialog = page.getByRole('dialog', { name: 'Row details' });
    await dialog.waitFor();
    const field = (name: string) => dialog.locator(`[data-field="${name}"] dd`).textContent();
    expect(await field('auditLogId')).toBe(rowId);
    expect(await field('resource')).toBe('config/organizations/create');
    expect(await field('userAgent')).toBe('console-logs-e2e');
    expect(await field('tenantId')).toBe(defaultTenantId);
    expect(JSON.parse((await field('meta')) ?? 'null')).toEqual(expect.any(Object));
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect(await page.evaluate(() => document.activeElement?.closest('tr')?.getAttribute('data-row-id'))).toBe(rowId);

    // Export of the range: the file holds what the list holds.
    const expected = await listLog('audit-logs', recent);
    const exported = async (button: string) => {
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: button }).click(),
      ]);
      const name = download.suggestedFilename();
      await page.getByRole('status').getByText(`Downloaded ${name}.`).waitFor();
      return { name, text: readFileSync((await download.path()) as string, 'utf8') };
    };
    const csv = await exported('Export CSV');
    expect(csv.name).toBe(`audit-logs_${recent.from}_${recent.to}.csv`);
    const lines = csv.text.split('\r\n').filter((line) => line !== '');
    expect(lines[0]).toBe(`\uFEFF${AUDIT_FIELDS.join(',')}`);
    const csvIds = lines.slice(1).map((line) => line.split(',')[0]);
    const jsonl = await exported('Export JSON lines');
    expect(jsonl.name).toBe(`audit-logs_${recent.from}_${recent.to}.jsonl`);
    const records = jsonl.text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as LogRecord);
    expect(records).toHaveLength(expected.total);
    expect(Object.keys(records[0]!)).toEqual(AUDIT_FIELDS);
    expect(records.map((record) => record.auditLogId)).toEqual(
      (expected.auditLogs as LogRecord[]).map((record) => record.auditLogId),
    );
    expect(csvIds).toEqual(records.map((record) => record.auditLogId));
    for (const record of records) {
      expect(String(record.createdAt).slice(0, 10) >= recent.from).toBe(true);
      expect(record.resource).not.toBe('bulk/seed');
    }
    await context.close();
  }, 90_000);

  it('lays out only a window of 10^5 rows and shows the oldest once scrolled to the end', async () => {
    const { context, page } = await consolePage(demo.user);
    await page.goto(`${base}/console/logs`);
    await applyRange(page, BULK_FROM, BULK_TO);
    await page.getByText('100,000 rows', { exact: true }).waitFor();
    const audit = table(page, 'Audit log');
    await audit.locator('tbody tr[data-row-id]').first().waitFor();
    expect(await audit.locator('table').getAttribute('aria-rowcount')).toBe(String(BULK + 1));
    const inDom = () => audit.locator('tbody tr[aria-rowindex]').count();
    expect(await inDom()).toBeLessThan(100);
    expect(await audit.locator('tbody tr[aria-rowindex="2"] td[data-column="userEmail"]').textContent()).toBe(
      `bulk-${String(BULK - 1).padStart(6, '0')}@example.com`,
    );

    // Half way, then to the end: the rows of those pages are asked for and shown, still only a window of them.
    await audit.evaluate((element) => {
      (element as BoxElement).scrollTop = 50_000 * 32;
    });
    await audit.locator('tbody tr[aria-rowindex="50002"][data-row-id]').waitFor();
    expect(await audit.locator('tbody tr[aria-rowindex="50002"] td[data-column="userEmail"]').textContent()).toBe(
      `bulk-${String(BULK - 1 - 50_000).padStart(6, '0')}@example.com`,
    );
    await audit.evaluate((element) => {
      const box = element as BoxElement;
      box.scrollTop = box.scrollHeight;
    });
    const last = audit.locator(`tbody tr[aria-rowindex="${BULK + 1}"]`);
    await last.locator('td[data-column="userEmail"]').waitFor();
    expect(await last.locator('td[data-column="userEmail"]').textContent()).toBe('bulk-000000@example.com');
    expect(await inDom()).toBeLessThan(100);
    await context.close();
  }, 90_000);

  it('shows the gateway spend and tokens per day, model, key and user as the log rows add up, over a range and per tenant', async () => {
    const { context, page, token } = await consolePage(demo.user);
    await page.goto(`${base}/console/usage`);
    await page.getByRole('heading', { name: 'Usage', level: 2 }).waitFor();
    const groups = page.getByRole('region', { name: 'Totals per group' });
    const groupRow = (name: string) =>
      groups.getByRole('row').filter({ has: page.getByRole('rowheader', { name, exact: true }) });
    await groupRow('second-model').waitFor();

    // The gateway log's own rows of second-model (the demo tenant's two calls; acme has none of it).
    const secondRows = ((await listLog('llm-gateway-logs'))['llmGatewayLogs'] as LogRecord[]).filter(
      (row) => row.modelName === 'second-model',
    );
    expect(secondRows).toHaveLength(2);
    const tokens = secondRows.reduce((sum, row) => sum + Number(row.totalTokens), 0);
    const money = new Intl.NumberFormat('en', {
      style: 'currency',
      currency: 'USD',
      minimumFractionDigits: 2,
      maximumFractionDigits: 8,
    });
    // Exact sums in units of 10^-8 USD (the log's scale), as the screen adds them.
    const units = (text: string) => {
      const [whole = '0', fraction = ''] = text.split('.');
      return BigInt(whole) * 100_000_000n + BigInt(fraction.padEnd(8, '0').slice(0, 8));
    };
    const cents = secondRows.reduce((sum, row) => sum + units(String(row.costUsd)), 0n);
    expect(cents).toBeGreaterThan(0n);
    const cells = async (name: string) => groupRow(name).getByRole('cell').allTextContents();
    // Cost, total, input, output, cached tokens, requests, errors.
    const second = await cells('second-model');
    expect(second[1]).toBe(String(tokens));
    expect(second[5]).toBe('2');
    expect(second[0]).toBe(
      money.format(`${cents / 100_000_000n}.${(cents % 100_000_000n).toString().padStart(8, '0')}` as never),
    );
    // Every group the API reports is a row, with the API's figures (the screen adds nothing of its own).
    const report = (await (
      await fetch(
        `${base}/api/v1/admin/gateway-usage?groupBy=model&from=${dayOf(Date.now() - 29 * DAY_MS)}&to=${dayOf(Date.now())}`,
        {
          headers: { authorization: `Bearer ${token()}` },
        },
      )
    ).json()) as UsageReport;
    expect(report.groups.map((group) => group.group)).toEqual(expect.arrayContaining(['agent-model', 'second-model']));
    for (const group of report.groups) {
      const shown = await cells(group.group ?? 'None');
      expect([shown[0], shown[1], shown[5]]).toEqual([
        money.format(group.costUsd as never),
        new Intl.NumberFormat('en').format(group.totalTokens),
        String(group.requests),
      ]);
    }
    // The charts: images named for what they show, the groups in their legend; the per-day table.
    await page.getByRole('img', { name: /^Spend per day \(Model\)\./ }).waitFor();
    await page.getByRole('img', { name: /^Tokens per day \(Model\)\./ }).waitFor();
    expect(await page.locator('.usage-legend').first().textContent()).toContain('second-model');
    const days = page.getByRole('region', { name: 'Per day' });
    await days.getByRole('cell', { name: 'second-model', exact: true }).first().waitFor();
    // Per UTC day: the day of each log row, its requests adding up to the group's.
    const secondDays = days
      .getByRole('row')
      .filter({ has: page.getByRole('cell', { name: 'second-model', exact: true }) });
    const perDay = await secondDays.evaluateAll((rows) =>
      rows.map((row) => {
        const cells = (row as PageElement & { children: ArrayLike<PageElement> }).children;
        return { day: cells[0]?.textContent, requests: Number(cells[7]?.textContent) };
      }),
    );
    expect(perDay.map((entry) => entry.day).sort()).toEqual(
      [...new Set(secondRows.map((row) => String(row.createdAt).slice(0, 10)))].sort(),
    );
    expect(perDay.reduce((sum, entry) => sum + entry.requests, 0)).toBe(2);
    // The spend chart's bars name their day, group and amount.
    expect(
      await page.locator('.usage-chart').first().locator('rect > title', { hasText: 'second-model' }).count(),
    ).toBe(perDay.length);

    // Per key and per user.
    await page.getByLabel('Group by').selectOption('key');
    await page.getByRole('button', { name: 'Apply' }).click();
    await groupRow(keys.beta.id).waitFor();
    expect((await cells(keys.beta.id))[5]).toBe('1');
    expect((await cells(keys.alpha.id))[5]).toBe('2');
    await page.getByRole('img', { name: /^Spend per day \(Key\)\./ }).waitFor();
    await page.getByLabel('Group by').selectOption('user');
    await page.getByRole('button', { name: 'Apply' }).click();
    await groupRow('api-key:alpha-bot').waitFor();
    expect((await cells('api-key:beta-bot'))[5]).toBe('1');

    // The operator's tenant filter: acme's usage alone.
    const tenant = page.getByLabel('Tenant');
    await tenant.locator('option', { hasText: 'acme' }).waitFor({ state: 'attached' });
    await tenant.selectOption({ label: 'acme' });
    await page.getByRole('button', { name: 'Apply' }).click();
    // The previous figures stay, marked busy, until the new ones come.
    await groupRow('api-key:alpha-bot').waitFor({ state: 'detached' });
    expect(await page.locator('.usage-report').getAttribute('aria-busy')).toBeNull();
    expect(await groups.getByRole('rowheader').allTextContents()).toEqual(['api-key:acme-bot', 'Total']);

    // A range in the past: nothing.
    await page.getByLabel('From', { exact: true }).fill('2020-01-01');
    await page.getByLabel('To', { exact: true }).fill('2020-01-31');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('No usage in this range.').waitFor();
    expect(await groups.getByRole('rowheader').allTextContents()).toEqual(['Total']);
    // A range the API would refuse is refused before the call.
    await page.getByLabel('From', { exact: true }).fill('2024-01-01');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByRole('alert').getByText('at most 366 days').waitFor();
    await context.close();
  }, 90_000);

  it("offers a plain user no console, and shows a tenant administrator only her tenant's logs and usage (another tenant's usage is 403)", async () => {
    const hal = await signInToWebApp(browser, base, { login: 'hal', password: PASSWORD }, { locale: 'en' });
    const adminCalls: string[] = [];
    hal.page.on('request', (request) => {
      if (new URL(request.url()).pathname.startsWith('/api/v1/admin/')) adminCalls.push(request.url());
    });
    await hal.page.goto(`${base}/console/logs`);
    await hal.page.getByRole('alert').getByText('Your account may not use the console').waitFor();
    await hal.page.goto(`${base}/console/usage`);
    await hal.page.getByRole('alert').getByText('Your account may not use the console').waitFor();
    expect(adminCalls).toEqual([]);
    await hal.context.close();

    const { context, page, token } = await consolePage({ login: 'tara', password: PASSWORD });
    await page.goto(`${base}/console/logs`);
    await page.getByRole('tab', { name: 'Gateway log' }).click();
    const gateway = table(page, 'Gateway log');
    await gateway.locator('tbody tr[data-row-id]').first().waitFor();
    const ids = await shownIds(page, 'Gateway log');
    expect(ids).not.toContain(acmeGatewayRowId);
    // Her list through the API: her tenant's rows only.
    const own = await listLog('llm-gateway-logs', {}, token());
    expect(own.total).toBe(ids.length);
    expect(new Set((own.llmGatewayLogs as LogRecord[]).map((row) => row.tenantId))).toEqual(new Set([defaultTenantId]));

    await page.goto(`${base}/console/usage`);
    const groups = page.getByRole('region', { name: 'Totals per group' });
    await groups.getByRole('rowheader', { name: 'second-model' }).waitFor();
    expect(await page.getByLabel('Tenant').count()).toBe(0);
    await page.getByLabel('Group by').selectOption('user');
    await page.getByRole('button', { name: 'Apply' }).click();
    await groups.getByRole('rowheader', { name: 'api-key:alpha-bot' }).waitFor();
    expect(await groups.getByRole('rowheader').allTextContents()).not.toContain('api-key:acme-bot');
    const other = await fetch(`${base}/api/v1/admin/gateway-usage?groupBy=model&tenantId=${acmeTenantId}`, {
      headers: { authorization: `Bearer ${token()}` },
    });
    expect(other.status).toBe(403);
    await context.close();
  }, 90_000);

  it('is usable by keyboard alone: the tabs by arrow keys, Home and End, and a row’s details (Escape closes, focus returns)', async () => {
    const { context, page } = await consolePage(demo.user);
    await page.goto(`${base}/console/logs`);
    await table(page, 'Audit log').locator('tbody tr[data-row-id]').first().waitFor();
    const selected = () =>
      page.evaluate(
        () => document.activeElement?.getAttribute('aria-selected') === 'true' && document.activeElement.textContent,
      );
    await tabTo(page, '[role="tab"][aria-selected="true"]');
    expect(await selected()).toBe('Audit log');
    await page.keyboard.press('ArrowRight');
    expect(await selected()).toBe('LLM log');
    await page.keyboard.press('End');
    expect(await selected()).toBe('Guardrail alerts');
    await page.keyboard.press('ArrowRight');
    expect(await selected()).toBe('Audit log');
    await page.keyboard.press('ArrowLeft');
    expect(await selected()).toBe('Guardrail alerts');
    await page.keyboard.press('Home');
    expect(await selected()).toBe('Audit log');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    expect(await selected()).toBe('Gateway log');
    await table(page, 'Gateway log').locator('tbody tr[data-row-id]').first().waitFor();

    await tabTo(page, 'button.log-open');
    const rowId = await page.evaluate(() => document.activeElement?.closest('tr')?.getAttribute('data-row-id'));
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Row details' });
    await dialog.waitFor();
    expect(await dialog.locator('[data-field="llmGatewayLogId"] dd').textContent()).toBe(rowId);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Close');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect(await page.evaluate(() => document.activeElement?.closest('tr')?.getAttribute('data-row-id'))).toBe(rowId);
    // Enter on Close closes it too.
    await page.keyboard.press('Enter');
    await dialog.waitFor();
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'hidden' });
    await context.close();
  }, 60_000);

  it('has no WCAG 2.1 AA violation (axe) in Japanese, English and Arabic (right to left) with a row’s details open and on the usage screen, and a phone never scrolls sideways', async () => {
    for (const [locale, width, height] of [
      ['ja', 1280, 800],
      ['en', 1280, 800],
      ['ar', 1280, 800],
      ['ar', 390, 844],
    ] as const) {
      const context = await axeContext(browser, { locale });
      const page = await context.newPage();
      await page.setViewportSize({ width, height });
      await page.goto(`${base}/console/logs`);
      await submitLoginForm(page, demo.user);
      await page.locator('#logs-title').waitFor();
      await page.locator('button.log-open').first().waitFor();
      if (locale === 'ar') {
        expect(await htmlLangDir(page)).toEqual(['ar', 'rtl']);
        // Right to left, the arrows follow the reading direction: the left arrow goes to the next tab.
        await page.locator('[role="tab"][aria-selected="true"]').focus();
        await page.keyboard.press('ArrowLeft');
        const focusedLog = () => page.evaluate(() => document.activeElement?.getAttribute('data-log'));
        expect(await focusedLog()).toBe('llm');
        await page.keyboard.press('ArrowRight');
        expect(await focusedLog()).toBe('audit');
        await page.locator('button.log-open').first().waitFor();
      }
      const sideways = () => page.evaluate(() => document.documentElement.scrollWidth);
      if (width < 400) {
        expect(await sideways()).toBeLessThanOrEqual(width);
      } else {
        await expectNoAxeViolations(page);
        await page.locator('button.log-open').first().click();
        await page.locator('dialog[open]').waitFor();
        await expectNoAxeViolations(page);
        await page.keyboard.press('Escape');
      }
      await page.goto(`${base}/console/usage`);
      await page.locator('#usage-title').waitFor();
      await page.locator('.usage-chart svg').first().waitFor();
      if (width < 400) expect(await sideways()).toBeLessThanOrEqual(width);
      else await expectNoAxeViolations(page);
      await context.close();
    }
  }, 180_000);
});
