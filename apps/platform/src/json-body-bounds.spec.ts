import { ClientsService } from '@fed/identity';
import { loadConfig } from '@fed/config';
import { createLogger } from '@fed/observability';
import { useTestDatabase } from '@fed/persistence/testing';
import { type RunningService, createServiceApp } from '@fed/server';
import { ScriptedUpstream, freePort } from '@fed/testing';
import { randomBytes, randomUUID } from 'node:crypto';
import { AdminServiceModule, AgentProtocolsModule, AuthServiceModule } from './platform-features';
import { type ChatStack, UPSTREAM_MODEL, bootChatStack } from './testing/boot-chat-stack';
import { textAnswer } from './testing/model-answers';

// Every JSON body of every service is bounded once, before it is parsed (docs/security.md, "Request
// bodies"): a field nested 100,000 deep, more objects and arrays than the surface allows, or an object
// that repeats a member name (I-JSON, RFC 7493) is a 400 in milliseconds, in the surface's own error
// format, before any model or route-specific check; normal bodies still work.

const DEPTH = 100_000;
const deepArray = `{"value":${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}}`;
const deepObject = `{"value":${'{"a":'.repeat(DEPTH)}1${'}'.repeat(DEPTH)}}`;
const containers = (n: number) => `{"value":[${Array.from({ length: n - 2 }, () => '{}').join(',')}]}`;
/** Over the REST and protocol bound (10,000) and over the gateway's (1,000,000). */
const TOO_MANY = containers(10_001);
const TOO_MANY_FOR_GATEWAY = containers(1_000_001);
const DUPLICATE = '{"role":"user","title":"t","role":"admin"}';

type Surface = 'rest' | 'gateway-chat' | 'gateway-messages' | 'a2a' | 'mcp' | 'marketplace';

interface Route {
  name: string;
  method: 'POST' | 'PUT' | 'PATCH';
  path: string;
  surface: Surface;
}

const id = randomUUID();
const standardRoutes: Route[] = [
  { name: 'chat', method: 'POST', path: '/api/v1/chat/completions', surface: 'rest' },
  { name: 'cancel', method: 'POST', path: `/api/v1/chat/completions/${id}/cancel`, surface: 'rest' },
  { name: 'PATCH conversation', method: 'PATCH', path: `/api/v1/conversations/${id}`, surface: 'rest' },
  { name: 'restore conversation', method: 'POST', path: `/api/v1/conversations/${id}/restore`, surface: 'rest' },
  { name: 'PATCH own profile', method: 'PATCH', path: '/api/v1/users/me', surface: 'rest' },
  { name: 'PUT role', method: 'PUT', path: `/api/v1/admin/users/${id}/role`, surface: 'rest' },
  { name: 'approve', method: 'POST', path: `/api/v1/admin/users/${id}/approve`, surface: 'rest' },
  { name: 'reject', method: 'POST', path: `/api/v1/admin/users/${id}/reject`, surface: 'rest' },
  { name: 'create organization', method: 'POST', path: '/api/v1/admin/organizations', surface: 'rest' },
  { name: 'rename organization', method: 'PATCH', path: '/api/v1/admin/organizations/ORG1', surface: 'rest' },
  { name: 'create job type', method: 'POST', path: '/api/v1/admin/job-types', surface: 'rest' },
  { name: 'rename job type', method: 'PATCH', path: '/api/v1/admin/job-types/JOB1', surface: 'rest' },
  { name: 'memory query', method: 'POST', path: '/api/v1/admin/memory/query', surface: 'rest' },
  { name: 'an unknown path', method: 'POST', path: '/api/v1/no-such-route', surface: 'rest' },
  { name: 'gateway chat/completions', method: 'POST', path: '/llm/v1/chat/completions', surface: 'gateway-chat' },
  { name: 'gateway responses', method: 'POST', path: '/llm/v1/responses', surface: 'gateway-chat' },
  { name: 'gateway embeddings', method: 'POST', path: '/llm/v1/embeddings', surface: 'gateway-chat' },
  { name: 'gateway messages', method: 'POST', path: '/llm/v1/messages', surface: 'gateway-messages' },
  { name: 'gateway count_tokens', method: 'POST', path: '/llm/v1/messages/count_tokens', surface: 'gateway-messages' },
  { name: 'A2A', method: 'POST', path: '/api/v1/a2a', surface: 'a2a' },
  { name: 'MCP', method: 'POST', path: '/api/v1/mcp', surface: 'mcp' },
];
const marketplaceRoute: Route = {
  name: 'Marketplace token endpoint',
  method: 'POST',
  path: '/api/v1/auth/external-service-token',
  surface: 'marketplace',
};

interface Answer {
  status: number;
  body: Record<string, unknown>;
  headers: Headers;
}

/** The refusal's message in the surface's own error format; throws when the body is not of that format. */
function refusalMessage(surface: Surface, answer: Answer): string {
  const { status, body } = answer;
  switch (surface) {
    case 'rest':
      expect(status).toBe(400);
      expect(body).toEqual({
        error: { type: 'invalid_request_error', code: 'invalid_json', message: expect.any(String) },
      });
      return (body.error as { message: string }).message;
    case 'gateway-chat':
      expect(status).toBe(400);
      expect(body).toEqual({
        error: { type: 'invalid_request_error', code: 'invalid_json', message: expect.any(String), param: null },
      });
      return (body.error as { message: string }).message;
    case 'gateway-messages':
      expect(status).toBe(400);
      expect(body).toEqual({ type: 'error', error: { type: 'invalid_request_error', message: expect.any(String) } });
      return (body.error as { message: string }).message;
    case 'a2a':
      // JSON-RPC over HTTP as the A2A SDK answers it: the error in a 200 (document 3: -32600 invalid request).
      expect(status).toBe(200);
      expect(body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.any(String) } });
      return (body.error as { message: string }).message;
    case 'mcp':
      expect(status).toBe(400);
      expect(body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.any(String) } });
      return (body.error as { message: string }).message;
    case 'marketplace':
      expect(status).toBe(400);
      expect(answer.headers.get('cache-control')).toBe('no-store');
      expect(body).toEqual({ success: false, error: 'invalid_request', error_description: expect.any(String) });
      return body.error_description as string;
  }
}

describe('JSON bodies of every service are bounded before parsing (depth, containers, repeated member names)', () => {
  const database = useTestDatabase();
  let upstream: ScriptedUpstream;
  let stack: ChatStack;
  let marketplace: RunningService;
  let headersBySurface: Record<Surface, Record<string, string>>;
  let serviceAccountSecret: string;

  beforeAll(async () => {
    upstream = await ScriptedUpstream.start();
    stack = await bootChatStack(database.url, upstream.url, { features: [AgentProtocolsModule, AdminServiceModule] });
    const port = await freePort();
    marketplace = await createServiceApp({
      app: 'platform',
      features: [AuthServiceModule],
      config: loadConfig('platform', {
        DATABASE_URL: database.url,
        EDITION: 'marketplace',
        KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
        HOST: '127.0.0.1',
        PORT: String(port),
        PUBLIC_URL: `http://127.0.0.1:${port}`,
      }),
      logger: createLogger({ service: 'platform', level: 'silent' }),
    });
    serviceAccountSecret = (
      await marketplace.nest.get(ClientsService).create({
        clientId: 'svc-bounds',
        name: 'svc-bounds',
        grantTypes: ['client_credentials'],
        scopes: ['chat:exec'],
      })
    ).clientSecret;
    const userToken = await stack.token(
      'openid chat:exec chat:history chat:file users:read users:manage master:manage sharedmemory:query',
    );
    const json = { 'content-type': 'application/json' };
    headersBySurface = {
      rest: { ...json, authorization: `Bearer ${userToken}` },
      'gateway-chat': { ...json, authorization: `Bearer ${stack.gatewayKey}` },
      'gateway-messages': { ...json, 'x-api-key': stack.gatewayKey, 'anthropic-version': '2023-06-01' },
      a2a: { ...json, authorization: `Bearer ${await stack.token('a2a:all')}`, 'a2a-version': '0.3' },
      mcp: {
        ...json,
        authorization: `Bearer ${await stack.token('mcp:all')}`,
        // One JSON document rather than an event stream, so that every answer reads alike.
        accept: 'application/json',
      },
      marketplace: json,
    };
  }, 60_000);

  afterAll(async () => {
    await marketplace?.shutdown('test');
    await stack?.close();
    await upstream?.close();
  });

  async function send(route: Route, body: string): Promise<Answer> {
    const base = route.surface === 'marketplace' ? marketplace.url : stack.service.url;
    const res = await fetch(`${base}${route.path}`, {
      method: route.method,
      headers: headersBySurface[route.surface],
      body,
    });
    const text = await res.text();
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw new Error(`${route.name} answered ${res.status} with a body that is not JSON: ${text.slice(0, 200)}`);
    }
    return { status: res.status, body: parsed, headers: res.headers };
  }

  const allRoutes = [...standardRoutes, marketplaceRoute];
  const cases = allRoutes.flatMap((route) => [
    { route, what: 'a field nested 100,000 deep in arrays', body: deepArray, reason: /nests deeper than 64 levels/ },
    { route, what: 'a field nested 100,000 deep in objects', body: deepObject, reason: /nests deeper than 64 levels/ },
    {
      route,
      what: 'more objects and arrays than the surface allows',
      body: route.path.startsWith('/llm/') ? TOO_MANY_FOR_GATEWAY : TOO_MANY,
      reason: route.path.startsWith('/llm/') ? /more than 1000000 objects and arrays/ : /more than 10000 objects/,
    },
    { route, what: 'an object repeating a member name', body: DUPLICATE, reason: /repeats the member name "role"/ },
  ]);

  it.each(cases.map((c) => [c.route.name, c.what, c] as const))(
    // The status and the scanner's reason tell it apart from a body that reached a parser or a walker (how long
    // a refusal takes is for a benchmark, not a test).
    '%s refuses %s: 400 in its own error format, before any route check',
    async (_name, _what, { route, body, reason }) => {
      const answer = await send(route, body);
      expect(refusalMessage(route.surface, answer)).toMatch(reason);
    },
  );

  /** The body bound of each surface: the host's parser 2 MB; the gateway, A2A and MCP 32 MB. */
  const bodyLimit = (surface: Surface) => (surface === 'rest' || surface === 'marketplace' ? 2 : 32) * 1024 * 1024;

  it.each(allRoutes.map((route) => [route.name, route] as const))(
    '%s refuses a body over its size bound with a 4xx (413; the Marketplace endpoint its own 400), before any route check',
    async (_name, route) => {
      const base = route.surface === 'marketplace' ? marketplace.url : stack.service.url;
      const res = await fetch(`${base}${route.path}`, {
        method: route.method,
        headers: headersBySurface[route.surface],
        body: `{"value":"${'x'.repeat(bodyLimit(route.surface))}"}`,
      });
      const text = await res.text();
      if (route.surface === 'marketplace') {
        expect(res.status).toBe(400);
        expect(JSON.parse(text)).toMatchObject({ success: false, error: 'invalid_request' });
      } else {
        expect(res.status).toBe(413);
      }
    },
    60_000,
  );

  // Who may call: a user's token holding every management scope is refused on every admin route while the
  // user is not an admin (the role rule), before the body is looked at.
  const adminRoutes = standardRoutes.filter((route) => route.path.startsWith('/api/v1/admin/'));
  it.each(
    [
      ...adminRoutes,
      ...['users', 'audit-logs', 'llm-logs', 'llm-gateway-logs', 'access-logs', 'guardrail-alerts'].map(
        (log): Route => ({ name: `GET ${log}`, method: 'GET' as never, path: `/api/v1/admin/${log}`, surface: 'rest' }),
      ),
    ].map((route) => [route.name, route] as const),
  )('%s refuses a user-role token that holds every management scope: 403', async (_name, route) => {
    const token = await stack.token(
      'openid users:read users:manage logs:read master:manage sharedmemory:query',
      undefined,
      'user',
    );
    const res = await fetch(`${stack.service.url}${route.path}`, {
      method: route.method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      ...(route.method === ('GET' as never)
        ? {}
        : { body: JSON.stringify({ role: 'admin', query: 'q', code: 'C', label: 'L' }) }),
    });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { type: string } }).error.type).toBe('permission_error');
  });

  it('refuses a second client_id at the Marketplace token endpoint instead of issuing a token for either', async () => {
    const real = JSON.stringify({ client_id: 'svc-bounds', client_secret: serviceAccountSecret });
    expect((await send(marketplaceRoute, real)).status).toBe(200);
    const smuggled = `{"client_id":"someone-else","client_secret":${JSON.stringify(serviceAccountSecret)},"client_id":"svc-bounds"}`;
    const answer = await send(marketplaceRoute, smuggled);
    expect(refusalMessage('marketplace', answer)).toMatch(/repeats the member name "client_id"/);
    expect(answer.body).not.toHaveProperty('access_token');
  });

  it('refuses a repeated "role" (also escaped as "r\\u006fle") when setting a role, before the role is read', async () => {
    for (const body of ['{"role":"user","role":"admin"}', '{"role":"user","r\\u006fle":"admin"}']) {
      const answer = await send(standardRoutes.find((r) => r.name === 'PUT role') as Route, body);
      expect(refusalMessage('rest', answer)).toMatch(/repeats the member name "role"/);
    }
  });

  describe('normal bodies still work', () => {
    it('a chat turn is answered', async () => {
      upstream.enqueue(textAnswer(['hello']));
      const chat = standardRoutes[0] as Route;
      const res = await fetch(`${stack.service.url}${chat.path}`, {
        method: 'POST',
        headers: headersBySurface.rest,
        body: JSON.stringify({
          model: 'federation-agent',
          stream: true,
          reportMode: 'without',
          messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
        }),
      });
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('data: [DONE]');
    });

    it('the gateway answers chat/completions with many messages and parts (a body over 10,000 containers)', async () => {
      upstream.enqueue(textAnswer(['fine']));
      const messages = Array.from({ length: 4000 }, (_, i) => ({
        role: i % 2 === 0 ? 'user' : 'assistant',
        content: [{ type: 'text', text: `part ${i}` }],
      }));
      const res = await fetch(`${stack.service.url}/llm/v1/chat/completions`, {
        method: 'POST',
        headers: headersBySurface['gateway-chat'],
        body: JSON.stringify({ model: 'agent-model', stream: true, messages }),
      });
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('fine');
      const forwarded = upstream.requests.at(-1)?.json as { model?: string; messages?: unknown[] };
      expect(forwarded).toMatchObject({ model: UPSTREAM_MODEL });
      expect(forwarded.messages).toHaveLength(4000);
    });

    it('MCP lists its tools and A2A reaches the task store', async () => {
      const mcp = await send(
        standardRoutes.find((r) => r.surface === 'mcp') as Route,
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      );
      expect(mcp.status).toBe(200);
      expect(mcp.body.result).toMatchObject({ tools: expect.any(Array) });
      const a2a = await send(
        standardRoutes.find((r) => r.surface === 'a2a') as Route,
        JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { id: randomUUID() } }),
      );
      expect(a2a.status).toBe(200);
      expect(a2a.body).toMatchObject({ id: 2, error: { code: -32001 } });
    });

    it.each(standardRoutes.filter((r) => r.surface === 'rest' && r.name !== 'chat').map((r) => [r.name, r] as const))(
      '%s: a normal body passes the bound and reaches the route',
      async (_name, route) => {
        const answer = await send(
          route,
          JSON.stringify({ role: 'user', title: 'A title', name: 'Name', code: 'C1', query: 'q' }),
        );
        expect(answer.status).toBeLessThan(500);
        expect(answer.body).not.toMatchObject({ error: { code: 'invalid_json' } });
      },
    );
  });
});
