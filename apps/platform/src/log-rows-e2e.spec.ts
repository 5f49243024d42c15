import OpenAI from 'openai';
import { type ProcessHandle, buildDist, cleanEnv, freePort, signIn, startProcess } from '@fed/testing';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type DemoCredentials } from './demo-realm';

const main = 'dist/apps/platform/src/main.js';
const cli = 'dist/apps/platformctl/src/main.js';
// The writers flush every 0.5-1 s off the request path: a row is looked for until this long after its event
// (10 s was once not enough for a gateway row while CI ran on a host taking 40% of this machine's CPU).
const WRITE_DELAY_MS = 25_000;

type LogRecord = Record<string, unknown>;

/**
 * Issue 17's check across the whole platform as `npm start` runs it: a sign-in, a chat turn, a gateway
 * call and an admin action each leave their rows, read back through the admin API with the demo
 * service account's `logs:read`: the rows of its tenant (issue 34), which the demo user, app and key belong to.
 * Rows of no tenant (an anonymous sign-in page) are the operator's, read with `platformctl logs`.
 */
describe('every event leaves its log rows, read back through the admin API (all-in-one)', () => {
  let dataDir: string;
  let port: number;
  let platform: ProcessHandle;
  let demo: DemoCredentials;
  let adminToken: string;
  let userToken: string;

  const base = () => `http://127.0.0.1:${port}`;

  beforeAll(async () => {
    buildDist();
    dataDir = await mkdtemp(path.join(tmpdir(), 'fed-log-rows-'));
    port = await freePort();
    platform = startProcess(main, [], cleanEnv({ PORT: String(port), DATA_DIR: dataDir }));
    await platform.waitForOutput(/Press Ctrl-C to stop/, 60_000);
    demo = JSON.parse(await readFile(path.join(dataDir, 'demo-credentials.json'), 'utf8')) as DemoCredentials;
    const res = await fetch(`${base()}/federation/auth/v1/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${demo.service.clientId}:${demo.service.clientSecret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials&scope=logs:read master:manage',
    });
    adminToken = ((await res.json()) as { access_token: string }).access_token;
  }, 90_000);

  afterAll(async () => {
    if (platform?.child.exitCode === null) platform.child.kill('SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
  });

  /**
   * The rows of one log (first page of 100, newest first) that `match` accepts, waited for. None in time
   * fails with what the platform printed (a write that failed is logged there) and `context`.
   */
  async function rowsOf(
    log: string,
    key: string,
    match: (row: LogRecord) => boolean,
    context = '',
  ): Promise<LogRecord[]> {
    const since = Date.now();
    for (;;) {
      const res = await fetch(`${base()}/api/v1/admin/${log}?limit=100`, {
        headers: { authorization: `Bearer ${adminToken}` },
      });
      expect(res.status).toBe(200);
      const rows = ((await res.json()) as Record<string, LogRecord[]>)[key]?.filter(match) ?? [];
      if (rows.length > 0) return rows;
      if (Date.now() - since > WRITE_DELAY_MS) {
        const printed = platform.output().slice(-6000);
        throw new Error(
          `no ${log} row in ${WRITE_DELAY_MS} ms; ${context}\nthe platform printed (its end):\n${printed}`,
        );
      }
      await sleep(250);
    }
  }

  /** The operator's view: a page of one log through `platformctl logs` on the running platform's DATA_DIR. */
  async function operatorRowsOf(kind: string, match: (row: LogRecord) => boolean): Promise<LogRecord[]> {
    const since = Date.now();
    for (;;) {
      const handle = startProcess(cli, ['logs', kind, '--limit', '100'], cleanEnv({ DATA_DIR: dataDir }));
      expect(await handle.exited(60_000)).toBe(0);
      const rows = handle
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as LogRecord)
        .filter(match);
      if (rows.length > 0) return rows;
      if (Date.now() - since > WRITE_DELAY_MS)
        throw new Error(`no ${kind} row for the operator in ${WRITE_DELAY_MS} ms`);
      await sleep(500);
    }
  }

  it('a sign-in: the access log has its authorization, login and token requests', async () => {
    const tokens = await signIn({
      serviceUrl: `http://localhost:${port}`,
      issuer: `http://localhost:${port}/realms/federation`,
      clientId: demo.app.clientId,
      clientSecret: demo.app.clientSecret,
      redirectUri: demo.app.redirectUri,
      login: demo.user.login,
      password: demo.user.password,
      scope: 'openid chat:exec chat:history',
    });
    userToken = tokens.access_token;
    const tokenRequests = await rowsOf(
      'access-logs',
      'accessLogs',
      (row) => row.method === 'POST' && String(row.path).startsWith('/federation/auth/v1/token'),
    );
    expect(tokenRequests[0]).toMatchObject({
      statusCode: 200,
      durationMs: expect.any(Number),
      timestamp: expect.any(String),
    });
    // The token request names its client, whose tenant it is; the authorization request is anonymous.
    expect(tokenRequests[0]).toMatchObject({ authzResult: 'allow', authzReason: 'client_secret' });
    const authorizations = await operatorRowsOf('access', (row) =>
      String(row.path).startsWith('/federation/auth/v1/authorize?'),
    );
    expect(authorizations.length).toBeGreaterThan(0);
    expect(authorizations[0]).toMatchObject({ tenantId: null });
    const tenantView = await fetch(`${base()}/api/v1/admin/access-logs?limit=100`, {
      headers: { authorization: `Bearer ${adminToken}` },
    });
    const { accessLogs } = (await tenantView.json()) as { accessLogs: LogRecord[] };
    expect(accessLogs.filter((row) => String(row.path).startsWith('/federation/auth/v1/authorize?'))).toEqual([]);
    // The authorization request's query carries the PKCE challenge and state: never stored as sent.
    for (const row of authorizations) {
      expect(String(row.path)).toContain('code_challenge=[redacted]');
      expect(String(row.path)).toContain('state=[redacted]');
    }
  }, 90_000);

  it('a chat turn: its model call in the LLM log and the gateway log, its request in the access log', async () => {
    const turn = await fetch(`${base()}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${userToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'federation-agent',
        stream: true,
        messages: [{ role: 'user', content: 'Hello logs' }],
      }),
    });
    expect(turn.status).toBe(200);
    const conversationId = turn.headers.get('x-conversation-id') as string;
    const events = await turn.text();
    expect(events).toContain('data: [DONE]');

    const llmRows = await rowsOf(
      'llm-logs',
      'llmLogs',
      (row) => row.conversationId === conversationId,
      `the turn streamed:\n${events}`,
    );
    expect(llmRows[0]).toMatchObject({ service: 'agent-runtime', success: true, currentMessage: 'Hello logs' });
    // The runtime names the conversation to the gateway (x-client-session-id).
    const gatewayRows = await rowsOf(
      'llm-gateway-logs',
      'llmGatewayLogs',
      (row) => row.clientSessionId === conversationId,
    );
    // The runtime calls with the platform's key (no tenant) and names the turn's tenant: the row is the tenant's.
    expect(gatewayRows[0]).toMatchObject({ success: true, stream: true, clientAgentId: 'agent-runtime' });
    expect(gatewayRows[0]?.tenantId).toBe(llmRows[0]?.tenantId);
    expect(gatewayRows[0]?.tenantId).toEqual(expect.any(String));
    const chatRequests = await rowsOf(
      'access-logs',
      'accessLogs',
      (row) => row.method === 'POST' && row.path === '/api/v1/chat/completions',
    );
    expect(chatRequests[0]).toMatchObject({ statusCode: 200, authzResult: 'allow' });
  }, 90_000);

  it('a gateway call with a virtual key: a gateway log row with its model and tokens', async () => {
    const openai = new OpenAI({ baseURL: `${base()}/llm/v1`, apiKey: demo.gatewayKey, maxRetries: 0 });
    const completion = await openai.chat.completions.create({
      model: 'demo',
      messages: [{ role: 'user', content: 'Hello gateway log' }],
    });
    const rows = await rowsOf(
      'llm-gateway-logs',
      'llmGatewayLogs',
      (row) => row.modelName === 'demo' && row.apiFlavor === 'chat_completions' && row.stream === false,
    );
    expect(rows[0]).toMatchObject({ success: true, httpStatus: 200, totalTokens: completion.usage?.total_tokens });
  }, 90_000);

  it('an admin action: an audit row with its actor, and the request in the access log', async () => {
    const created = await fetch(`${base()}/api/v1/admin/organizations`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${adminToken}`,
        'content-type': 'application/json',
        'user-agent': 'log-rows-e2e',
      },
      body: JSON.stringify({ code: 'logs-e2e', label: 'Logs end to end' }),
    });
    expect(created.status).toBe(201);
    const audit = await rowsOf('audit-logs', 'auditLogs', (row) => row.resource === 'config/organizations/create');
    expect(audit[0]).toMatchObject({ action: 'create', userAgent: 'log-rows-e2e', ipAddress: expect.any(String) });
    const access = await rowsOf(
      'access-logs',
      'accessLogs',
      (row) => row.path === '/api/v1/admin/organizations' && row.method === 'POST',
    );
    expect(access[0]).toMatchObject({ statusCode: 201, authzResult: 'allow', userAgent: 'log-rows-e2e' });
  }, 90_000);
});
