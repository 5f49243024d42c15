import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import {
  type ProcessHandle,
  ScriptedUpstream,
  buildDist,
  cleanEnv,
  freePort,
  signIn,
  startProcess,
} from '@fed/testing';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { textAnswer } from './testing/model-answers';

// The Marketplace edition end to end, as its deployment runs it: the platform process with
// EDITION=marketplace on PostgreSQL, agents made with platformctl, a token from the Marketplace token
// endpoint, turns answered through the edition's internal gateway by the scripted provider.

const main = 'dist/apps/platform/src/main.js';
const cli = 'dist/apps/platformctl/src/main.js';
const CHAT_MODEL = 'federation-agent';

interface Chunk {
  choices: { delta: { content?: string }; finishReason: string | null }[];
}

interface ErrorBody {
  error?: { code?: string; message?: string };
}

describe('Marketplace edition (EDITION=marketplace) end to end', () => {
  let database: TestDatabase;
  let upstream: ScriptedUpstream;
  let platform: ProcessHandle | undefined;
  let dataDir: string;
  let base: string;
  let token: string;
  let secondToken: string;
  let tenantId: string;

  async function platformctl(...args: string[]): Promise<string> {
    const handle = startProcess(cli, args, cleanEnv({ DATABASE_URL: database.url, LOG_LEVEL: 'warn' }));
    const code = await handle.exited(60_000);
    if (code !== 0) throw new Error(`platformctl ${args.join(' ')} exited ${code}: ${handle.output()}`);
    return handle.output();
  }

  async function marketplaceToken(clientId: string, clientSecret: string): Promise<string> {
    const res = await fetch(`${base}/api/v1/auth/external-service-token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: clientId, client_secret: clientSecret }),
    });
    const body = (await res.json()) as { success: boolean; access_token: string };
    expect(res.status).toBe(200);
    expect(body.success).toBe(true);
    return body.access_token;
  }

  const headers = (bearer: string, agentId?: string): Record<string, string> => ({
    authorization: `Bearer ${bearer}`,
    'content-type': 'application/json',
    ...(agentId !== undefined ? { 'x-agent-id': agentId } : {}),
  });

  /** POSTs a chat request; a 200 stream is read to its end. */
  async function chat(body: Record<string, unknown>, options: { agentHeader?: string; bearer?: string } = {}) {
    const res = await fetch(`${base}/api/v1/chat/completions`, {
      method: 'POST',
      headers: headers(options.bearer ?? token, options.agentHeader),
      body: JSON.stringify({ model: CHAT_MODEL, stream: true, ...body }),
    });
    const text = await res.text();
    if (res.status !== 200) return { status: res.status, error: JSON.parse(text) as ErrorBody };
    const chunks = text
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice(6)) as Chunk);
    return {
      status: res.status,
      conversationId: res.headers.get('x-conversation-id') as string,
      text: chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join(''),
      finishReason: chunks.at(-1)?.choices[0]?.finishReason,
      done: text.trimEnd().endsWith('data: [DONE]'),
    };
  }

  async function get(pathname: string, agentId?: string, bearer = token) {
    const res = await fetch(`${base}/api${pathname}`, { headers: headers(bearer, agentId) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> & ErrorBody };
  }

  beforeAll(async () => {
    buildDist();
    database = await createTestDatabase();
    upstream = await ScriptedUpstream.start();
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'fed-marketplace-'));
    const routingFile = path.join(dataDir, 'routing.yaml');
    writeFileSync(
      routingFile,
      stringify({
        providers: [{ name: 'scripted', type: 'openai', baseUrl: `${upstream.url}/v1`, apiKey: 'sk-upstream' }],
        models: [
          { name: 'agent-model', deployments: [{ provider: 'scripted', model: 'upstream-default' }] },
          { name: 'support-model', deployments: [{ provider: 'scripted', model: 'upstream-support' }] },
        ],
        retries: { attempts: 1 },
      }),
    );
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    platform = startProcess(
      main,
      [],
      cleanEnv({
        DATABASE_URL: database.url,
        PORT: String(port),
        PUBLIC_URL: base,
        DATA_DIR: dataDir,
        EDITION: 'marketplace',
        CHAT_MODEL_NAME: CHAT_MODEL,
        LLM_GATEWAY_ROUTING_FILE: routingFile,
        AGENT_MODEL: 'agent-model',
        AGENT_MODEL_HIGH_PERFORMANCE: 'agent-model',
        AGENT_COALESCE_MS: '5',
        LOG_LEVEL: 'warn',
      }),
    );
    await platform.waitForOutput(/Press Ctrl-C to stop/, 90_000);

    await platformctl(
      'agents',
      'create',
      '--id',
      'support',
      '--name',
      'Support bot',
      '--instructions',
      'Help customers of Example Corp with their orders.',
      '--model',
      'support-model',
      '--temperature',
      '0.2',
      '--max-output-tokens',
      '300',
    );
    await platformctl('agents', 'create', '--id', 'sales', '--name', 'Sales bot', '--instructions', 'Sell.');
    await platformctl('agents', 'create', '--id', 'sleepy', '--name', 'Sleepy', '--instructions', 'Zzz.', '--disabled');
    await platformctl(
      'agents',
      'create',
      '--id',
      'elsewhere',
      '--name',
      'Other tenant',
      '--instructions',
      'Hi.',
      '--tenant',
      randomUUID(),
    );
    const credentials = JSON.parse(readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8')) as {
      service: { clientId: string; clientSecret: string };
    };
    token = await marketplaceToken(credentials.service.clientId, credentials.service.clientSecret);
    tenantId = (
      JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString()) as {
        tenant: { id: string };
      }
    ).tenant.id;
    const second = await platformctl(
      'clients',
      'create',
      '--client-id',
      'panel-two',
      '--name',
      'Second panel',
      '--grant',
      'client_credentials',
    );
    secondToken = await marketplaceToken('panel-two', /client_secret: (\S+)/.exec(second)?.[1] as string);
  }, 180_000);

  afterAll(async () => {
    platform?.child.kill('SIGKILL');
    await upstream?.close();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("answers a turn for the agent named in the body, with the agent's instructions and model configuration", async () => {
    upstream.reset();
    upstream.enqueue(textAnswer(['Your **order** ships today.']));
    const turn = await chat({
      agentId: 'support',
      outputFormat: 'markdown',
      messages: [{ role: 'user', content: 'Where is my order?' }],
    });
    expect(turn).toMatchObject({ status: 200, done: true, finishReason: 'stop' });
    expect(turn.text).toContain('Your **order** ships today.');
    const [request] = await upstream.waitForRequests(1);
    const sent = request?.json as {
      model: string;
      temperature?: number;
      max_tokens?: number;
      tools?: { function: { name: string } }[];
      messages: { role: string; content: string }[];
    };
    expect(sent.model).toBe('upstream-support');
    expect(sent.temperature).toBe(0.2);
    expect(sent.max_tokens).toBe(300);
    const system = sent.messages[0]?.content;
    expect(system).toContain('You are Support bot');
    expect(system).toContain('Help customers of Example Corp with their orders.');
    // The SaaS tenant's shared memory is not offered to a Marketplace agent.
    const tools = (sent.tools ?? []).map((tool) => tool.function.name);
    expect(tools).not.toContain('search_memory');
    expect(tools).not.toContain('save_memory');
  });

  it('takes the agent from X-Agent-Id, ignores the SaaS-only fields, and applies outputFormat (plain by default)', async () => {
    upstream.reset();
    upstream.enqueue(textAnswer(['# Title\n\nSome **bold** words.\n']));
    const turn = await chat(
      {
        messages: [{ role: 'user', content: 'Hello' }],
        // SaaS-only fields, with values the SaaS edition refuses: ignored here.
        agentLevel: 'turbo',
        agentMode: 'yes',
        privateMode: 1,
        reportMode: 'sometimes',
        personaKey: '',
        playbookId: 'not-a-playbook',
        skillIds: Array.from({ length: 20 }, (_, i) => `skill-${i}`),
      },
      { agentHeader: 'sales' },
    );
    expect(turn).toMatchObject({ status: 200, done: true });
    expect(turn.text).toContain('Title\n\nSome bold words.');
    expect(turn.text).not.toContain('**');
    const [request] = await upstream.waitForRequests(1);
    const sent = request?.json as { model: string; temperature?: number; messages: { content: string }[] };
    expect(sent.model).toBe('upstream-default');
    expect(sent.temperature).toBeUndefined();
    expect(sent.messages[0]?.content).toContain('You are Sales bot');
  });

  it('refuses a request without an agent, with an unknown, disabled or other-tenant agent, or with two different ones', async () => {
    const message = { messages: [{ role: 'user', content: 'Hi' }] };
    const cases: [Record<string, unknown>, string | undefined, string][] = [
      [message, undefined, 'agent_id_required'],
      [{ ...message, agentId: '' }, undefined, 'agent_id_required'],
      [{ ...message, agentId: 'nobody' }, undefined, 'agent_not_found'],
      [message, '../support', 'agent_not_found'],
      [{ ...message, agentId: 'elsewhere' }, undefined, 'agent_not_found'],
      [{ ...message, agentId: 'sleepy' }, undefined, 'agent_disabled'],
      [{ ...message, agentId: 'support' }, 'sales', 'agent_id_mismatch'],
      [{ ...message, agentId: 42 }, undefined, 'invalid_request'],
    ];
    for (const [body, header, code] of cases) {
      const answer = await chat(body, { agentHeader: header });
      expect({ body, header, status: answer.status, code: answer.error?.error?.code }).toEqual({
        body,
        header,
        status: 400,
        code,
      });
    }
    // The same agent in both places is fine.
    upstream.enqueue(textAnswer(['ok']));
    expect((await chat({ ...message, agentId: 'sales' }, { agentHeader: 'sales' })).status).toBe(200);
  });

  it('scopes conversations and message search to the service account and the agent', async () => {
    upstream.enqueue(textAnswer(['First answer']));
    const turn = await chat({ agentId: 'support', messages: [{ role: 'user', content: 'Scoped question' }] });
    const { conversationId } = turn as { conversationId: string };

    const mine = await get('/v1/conversations', 'support');
    expect(mine.status).toBe(200);
    const ids = (mine.body.conversations as { conversationId: string }[]).map((c) => c.conversationId);
    expect(ids).toContain(conversationId);
    const sales = await get('/v1/conversations', 'sales');
    expect((sales.body.conversations as { conversationId: string }[]).map((c) => c.conversationId)).not.toContain(
      conversationId,
    );
    // Another service account, same agent: nothing of ours.
    const other = await get('/v1/conversations', 'support', secondToken);
    expect(other.body.conversations).toEqual([]);

    expect((await get(`/v1/conversations/${conversationId}/messages`, 'support')).status).toBe(200);
    expect((await get(`/v1/conversations/${conversationId}/messages`, 'sales')).status).toBe(404);
    expect((await get(`/v1/conversations/${conversationId}/messages`, 'support', secondToken)).status).toBe(404);

    // Continuing it through another agent, or as another service account: not found.
    const across = await chat({ agentId: 'sales', conversationId, messages: [{ role: 'user', content: 'Hi' }] });
    expect(across.status).toBe(404);
    const stranger = await chat(
      { agentId: 'support', conversationId, messages: [{ role: 'user', content: 'Hi' }] },
      { bearer: secondToken },
    );
    expect(stranger.status).toBe(404);

    // Message search: the same pair.
    const found = (agentId: string, bearer = token) =>
      get('/v1/search?q=Scoped', agentId, bearer).then(({ status, body }) => ({
        status,
        ids: ((body.results ?? []) as { conversationId: string }[]).map((hit) => hit.conversationId),
      }));
    expect(await found('support')).toEqual({ status: 200, ids: [conversationId] });
    expect(await found('sales')).toEqual({ status: 200, ids: [] });
    expect(await found('support', secondToken)).toEqual({ status: 200, ids: [] });
    expect((await get('/v1/search?q=Scoped')).body.error?.code).toBe('agent_id_required');

    // A list without X-Agent-Id: the service account's conversations across its agents, each naming its agent.
    const bare = await get('/v1/conversations');
    expect(bare.status).toBe(200);
    expect(bare.body.conversations).toContainEqual(expect.objectContaining({ conversationId, agentId: 'support' }));
    expect((await get('/v1/conversations', undefined, secondToken)).body.conversations).toEqual([]);
    // An id still needs its agent.
    const byId = await get(`/v1/conversations/${conversationId}/messages`);
    expect(byId).toMatchObject({ status: 400, body: { error: { code: 'agent_id_required' } } });
    // A disabled agent's conversations stay readable.
    expect((await get('/v1/conversations', 'sleepy')).status).toBe(200);
  });

  it('scopes files to the service account and the agent', async () => {
    const form = new FormData();
    form.append('file', new Blob(['order 1234']), 'order.txt');
    form.append('filename', 'order.txt');
    const upload = await fetch(`${base}/api/v1/files`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'x-agent-id': 'support' },
      body: form,
    });
    expect(upload.status).toBe(201);
    const { fileId } = (await upload.json()) as { fileId: string };
    const content = (agentId: string, bearer = token) =>
      fetch(`${base}/api/v1/files/${fileId}/content`, { headers: headers(bearer, agentId) });
    expect((await content('support')).status).toBe(200);
    expect((await content('sales')).status).toBe(404);
    // The list without X-Agent-Id names the file's agent; another service account's list never shows it.
    expect((await get('/v1/files')).body.files).toContainEqual(expect.objectContaining({ fileId, agentId: 'support' }));
    expect((await get('/v1/files', undefined, secondToken)).body.files).toEqual([]);
    expect((await content('support', secondToken)).status).toBe(404);
    // A turn of another agent cannot attach it.
    const attach = await chat({
      agentId: 'sales',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Read it' },
            { type: 'input_file', fileId },
          ],
        },
      ],
    });
    expect(attach.status).toBe(404);
  });

  it("refuses a person's token (authorization code flow): document 2 is the service accounts' here", async () => {
    const credentials = JSON.parse(readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8')) as {
      user: { login: string; password: string };
      app: { clientId: string; clientSecret: string; redirectUri: string };
    };
    const tokens = await signIn({
      serviceUrl: base,
      issuer: `${base}/realms/federation`,
      clientId: credentials.app.clientId,
      clientSecret: credentials.app.clientSecret,
      redirectUri: credentials.app.redirectUri,
      login: credentials.user.login,
      password: credentials.user.password,
    });
    const listed = await get('/v1/conversations', 'support', tokens.access_token);
    expect(listed).toMatchObject({ status: 403, body: { error: { code: 'service_account_required' } } });
    const turn = await chat(
      { agentId: 'support', messages: [{ role: 'user', content: 'Hi' }] },
      { bearer: tokens.access_token },
    );
    expect(turn).toMatchObject({ status: 403, error: { error: { code: 'service_account_required' } } });
  });

  it('needs no scope: the service account token carries none of the chat scopes', () => {
    const claims = JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString()) as {
      scope?: string;
    };
    expect(claims.scope ?? '').not.toMatch(/chat:exec/);
    expect(tenantId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('has no library, user information, master data, catalog lists, admin API, A2A, MCP or model gateway (404)', async () => {
    const paths: [string, string][] = [
      ['GET', '/api/v1/library'],
      ['GET', '/api/v1/personas'],
      ['GET', '/api/v1/playbooks'],
      ['GET', '/api/v1/skills'],
      ['GET', '/api/v1/users/me'],
      ['GET', '/api/v1/organizations'],
      ['GET', '/api/v1/job-types'],
      ['GET', '/api/v1/admin/users'],
      ['GET', '/api/v1/admin/audit-logs'],
      ['GET', '/api/v1/admin/organizations'],
      ['POST', '/api/v1/admin/memory/query'],
      ['GET', '/.well-known/agent-card.json'],
      ['POST', '/api/v1/a2a'],
      ['POST', '/api/v1/mcp'],
      ['GET', '/.well-known/oauth-protected-resource/api/v1/mcp'],
      ['GET', '/llm/v1/models'],
      ['POST', '/llm/v1/chat/completions'],
      ['POST', '/llm/v1/messages'],
    ];
    // What a path that never existed answers: the SaaS-only ones must not be told apart from it.
    const unknown = async (method: string) =>
      (await (await fetch(`${base}/api/v1/no-such-thing`, { method })).json()) as ErrorBody;
    for (const [method, pathname] of paths) {
      const expected = JSON.stringify(await unknown(method)).replace('/api/v1/no-such-thing', pathname);
      for (const bearer of [token, undefined]) {
        const res = await fetch(`${base}${pathname}`, {
          method,
          headers: {
            'content-type': 'application/json',
            'x-agent-id': 'support',
            ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
          },
          ...(method === 'POST' ? { body: '{}' } : {}),
        });
        const body = await res.text();
        expect({ method, pathname, authenticated: Boolean(bearer), status: res.status, body }).toEqual({
          method,
          pathname,
          authenticated: Boolean(bearer),
          status: 404,
          body: expected,
        });
      }
    }
  });

  it('stops taking turns for an agent disabled with platformctl, and keeps its history readable', async () => {
    upstream.enqueue(textAnswer(['before']));
    const before = await chat({ agentId: 'sales', messages: [{ role: 'user', content: 'Before' }] });
    expect(before.status).toBe(200);
    await platformctl('agents', 'disable', 'sales');
    const after = await chat({ agentId: 'sales', messages: [{ role: 'user', content: 'After' }] });
    expect(after).toMatchObject({ status: 400, error: { error: { code: 'agent_disabled' } } });
    const history = await get(`/v1/conversations/${before.conversationId as string}/messages`, 'sales');
    expect(history.status).toBe(200);
    await platformctl('agents', 'enable', 'sales');
    upstream.enqueue(textAnswer(['again']));
    expect((await chat({ agentId: 'sales', messages: [{ role: 'user', content: 'Again' }] })).status).toBe(200);
  }, 90_000);

  it('deletes an agent for good: requests cannot name it, and its id is not given to a new agent', async () => {
    await platformctl('agents', 'create', '--id', 'short-lived', '--name', 'Short', '--instructions', 'Brief.');
    upstream.enqueue(textAnswer(['kept']));
    const turn = await chat({ agentId: 'short-lived', messages: [{ role: 'user', content: 'Remember me' }] });
    expect(turn.status).toBe(200);
    await platformctl('agents', 'delete', 'short-lived');
    expect(await get('/v1/conversations', 'short-lived')).toMatchObject({
      status: 400,
      body: { error: { code: 'agent_not_found' } },
    });
    await expect(
      platformctl('agents', 'create', '--id', 'short-lived', '--name', 'Again', '--instructions', 'New.'),
    ).rejects.toThrow(/agent_exists|is taken/);
    expect(await platformctl('agents', 'list')).not.toContain('short-lived');
    // Four platformctl processes (each loads every command's modules: seconds on a loaded machine).
  }, 120_000);
});
