import 'reflect-metadata';
import { ToolServerNetwork, toolServersAdminServiceFor } from '@fed/agent';
import { loadConfig } from '@fed/config';
import { createLogger } from '@fed/observability';
import { type RunningService, createServiceApp } from '@fed/server';
import { McpAppsServer, freePort } from '@fed/testing';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AdminServiceModule } from './admin-service.module';
import { type AdminStack, bootAdminStack, call } from './testing/boot-admin-stack';
import {
  type PlatformCallers,
  REFUSED_TO_ALL_BUT_THE_OPERATOR,
  auditRows,
  platformCallers,
  refusalsOf,
} from './testing/platform-callers';

const SECRET = 'Bearer weather-secret';
const ROUTE = '/api/v1/admin/tool-servers';

interface ToolView {
  name: string;
  allowed: boolean;
  offered: boolean;
  agentToolName: string | null;
}

/**
 * Tool servers over HTTP (issue 38): `/api/v1/admin/tool-servers`, the platform operator's (platform:manage), over
 * the service `platformctl toolservers` calls, against real MCP servers on loopback (as TOOLSERVER_ALLOW_PRIVATE_
 * ADDRESSES=true allows). A second admin-service with the default rule shows the address rule applies to the
 * route as it does to platformctl.
 */
describe('tool servers over HTTP (platform:manage)', () => {
  let stack: AdminStack;
  let callers: PlatformCallers;
  let weather: McpAppsServer;
  let open: McpAppsServer;
  /** admin-service as deployed by default: public addresses only, and no TOOLSERVER_SECRET_KEY. */
  let strict: RunningService;
  let strictBlobs: string;
  const secretKey = randomBytes(32).toString('base64');

  const asOperator = (method: string, pathAndQuery: string, body?: unknown) =>
    call(stack.admin, method, pathAndQuery, callers.operator, body);
  const asOperatorOfStrict = (method: string, pathAndQuery: string, body?: unknown) =>
    call(strict, method, pathAndQuery, callers.operator, body);
  const cli = () => toolServersAdminServiceFor(stack.dataSource, undefined, { network: ToolServerNetwork.of(true) });
  const addWeather = (allowedTools = ['show_weather', 'echo'], extra: Record<string, unknown> = {}) =>
    asOperator('POST', ROUTE, { name: 'weather', url: weather.url, authHeader: SECRET, allowedTools, ...extra });
  const toolsOf = (body: Record<string, unknown>) =>
    (body['tools'] as ToolView[]).map(({ name, allowed, offered, agentToolName }) => [
      name,
      allowed,
      offered,
      agentToolName,
    ]);

  beforeAll(async () => {
    weather = await McpAppsServer.start({ authHeader: SECRET });
    open = await McpAppsServer.start();
    stack = await bootAdminStack({
      env: { TOOLSERVER_ALLOW_PRIVATE_ADDRESSES: 'true', TOOLSERVER_SECRET_KEY: secretKey },
    });
    callers = await platformCallers(stack, 'toolservers');
    strictBlobs = mkdtempSync(path.join(tmpdir(), 'fed-strict-admin-'));
    const port = await freePort();
    strict = await createServiceApp({
      app: 'admin-service',
      features: [AdminServiceModule],
      config: loadConfig('admin-service', {
        DATABASE_URL: stack.database.url,
        REDIS_URL: stack.admin.config.redis.url as string,
        REDIS_KEY_PREFIX: stack.admin.config.redis.keyPrefix,
        HOST: '127.0.0.1',
        PORT: String(port),
        AUTH_URL: stack.auth.config.auth.authUrl,
        BLOB_DIR: strictBlobs,
      }),
      logger: createLogger({ service: 'admin-service', level: 'silent' }),
    });
  }, 120_000);
  afterAll(async () => {
    await strict?.shutdown('test');
    await stack?.close();
    await weather?.close();
    await open?.close();
    if (strictBlobs) rmSync(strictBlobs, { recursive: true, force: true });
  });
  beforeEach(async () => {
    weather.mode = 'up';
    open.mode = 'up';
    await stack.dataSource.query('DELETE FROM "agent"."tool_servers"');
  });

  it("refuses every route to all but the platform operator: no token 401; a tenant admin, a plain user and a tenant's client with every other management scope 403, asking no server", async () => {
    expect((await addWeather()).status).toBe(201);
    const asked = weather.methods.length;
    const routes: [string, string, unknown?][] = [
      ['GET', ROUTE],
      ['POST', ROUTE, { name: 'other', url: weather.url, allowedTools: ['echo'] }],
      ['GET', `${ROUTE}/weather`],
      ['PATCH', `${ROUTE}/weather`, { allowedTools: ['echo'] }],
      ['POST', `${ROUTE}/weather/refresh`],
      ['DELETE', `${ROUTE}/weather`],
    ];
    for (const [method, route, body] of routes) {
      expect([method, route, await refusalsOf(stack, callers, method, route, body)]).toEqual([
        method,
        route,
        REFUSED_TO_ALL_BUT_THE_OPERATOR,
      ]);
    }
    expect(weather.methods.length).toBe(asked);
    expect((await cli().list()).map((item) => [item.name, item.allowedTools])).toEqual([
      ['weather', ['show_weather', 'echo']],
    ]);
  });

  it('adds a server with the tools allowed, its auth header sealed and never shown, and lists it with its URL, state, last refresh and every tool it offers with which are allowed', async () => {
    const added = await addWeather(['show_weather', 'echo'], { timeoutSeconds: 20 });
    expect(added).toMatchObject({
      status: 201,
      body: {
        name: 'weather',
        url: weather.url,
        auth: 'set',
        enabled: true,
        state: 'ready',
        timeoutSeconds: 20,
        allowedTools: ['show_weather', 'echo'],
        lastError: null,
      },
    });
    expect(toolsOf(added.body)).toEqual([
      ['show_weather', true, true, 'weather__show_weather'],
      ['echo', true, true, 'weather__echo'],
      ['broken', false, true, 'weather__broken'],
      ['embedded_view', false, true, 'weather__embedded_view'],
    ]);
    expect((added.body['tools'] as { description: string }[])[1]?.description).toBe('Echoes its text.');
    expect(Date.parse(added.body['lastRefreshedAt'] as string)).toBeGreaterThan(Date.now() - 60_000);
    expect(weather.authorizations.at(-1)).toBe(SECRET);
    expect(JSON.stringify(added.body)).not.toContain('weather-secret');
    const [row] = (await stack.dataSource.query(`SELECT "auth_header" FROM "agent"."tool_servers"`)) as {
      auth_header: Buffer;
    }[];
    expect(row?.auth_header.toString('latin1')).not.toContain('weather-secret');

    const listed = await asOperator('GET', ROUTE);
    expect(listed).toMatchObject({ status: 200, body: { total: 1, limit: 25, page: 1, hasMore: false } });
    expect(listed.body['toolServers']).toEqual([added.body]);
    expect(await asOperator('GET', `${ROUTE}/weather`)).toEqual({ status: 200, body: added.body });
    expect(JSON.stringify(listed.body)).not.toContain('weather-secret');
    // platformctl reads what the route wrote: the same service over the same rows.
    expect((await cli().list()).map((item) => [item.name, item.auth, item.agentTools])).toEqual([
      ['weather', 'set', ['weather__show_weather', 'weather__echo']],
    ]);
  });

  it('pages in name order: limit, page, total and hasMore = page * limit < total', async () => {
    for (const name of ['charlie', 'alpha', 'bravo']) {
      expect((await asOperator('POST', ROUTE, { name, url: open.url, allowedTools: ['echo'] })).status).toBe(201);
    }
    const first = await asOperator('GET', `${ROUTE}?limit=2`);
    expect((first.body['toolServers'] as { name: string }[]).map((s) => s.name)).toEqual(['alpha', 'bravo']);
    expect(first.body).toMatchObject({ total: 3, limit: 2, page: 1, hasMore: true });
    const second = await asOperator('GET', `${ROUTE}?limit=2&page=2`);
    expect((second.body['toolServers'] as { name: string }[]).map((s) => s.name)).toEqual(['charlie']);
    expect(second.body).toMatchObject({ total: 3, page: 2, hasMore: false });
    for (const query of ['?limit=0', '?limit=101', '?page=0', '?page=x']) {
      const answer = await asOperator('GET', `${ROUTE}${query}`);
      expect([query, answer.status, answer.body.error?.code]).toEqual([query, 400, 'invalid_parameter']);
    }
  });

  it('changes the allowed tools, the timeout, the URL and the auth header, asking the server with them first; nothing changes when it refuses', async () => {
    await addWeather();
    const allowed = await asOperator('PATCH', `${ROUTE}/weather`, { allowedTools: ['echo', 'broken'] });
    expect(allowed).toMatchObject({ status: 200, body: { allowedTools: ['echo', 'broken'], auth: 'set' } });
    expect(toolsOf(allowed.body).filter(([, isAllowed]) => isAllowed)).toEqual([
      ['echo', true, true, 'weather__echo'],
      ['broken', true, true, 'weather__broken'],
    ]);
    expect((await cli().get('weather')).agentTools).toEqual(['weather__echo', 'weather__broken']);
    expect((await asOperator('PATCH', `${ROUTE}/weather`, { timeoutSeconds: 5 })).body['timeoutSeconds']).toBe(5);

    const refusals: [unknown, number, string, RegExp][] = [
      [{ allowedTools: ['echo', 'forecast'] }, 400, 'invalid_parameter', /offers no tool named forecast/],
      // The new header is tried before it is kept: the server answers 401.
      [{ authHeader: 'Bearer wrong' }, 502, 'upstream_api_error', /did not answer as an MCP server: HTTP 401/],
      // Another origin does not inherit the header given for this one.
      [{ url: open.url }, 400, 'invalid_parameter', /give it again for the new origin, or remove it/],
      [{}, 400, 'invalid_request', /give at least one of/],
      [{ name: 'renamed' }, 400, 'invalid_parameter', /unknown field "name"/],
      [{ enabled: false }, 400, 'invalid_parameter', /unknown field "enabled"/],
    ];
    for (const [body, status, code, message] of refusals) {
      const answer = await asOperator('PATCH', `${ROUTE}/weather`, body);
      expect([body, answer.status, answer.body.error?.code]).toEqual([body, status, code]);
      expect(answer.body.error?.message).toMatch(message);
    }
    expect(await cli().get('weather')).toMatchObject({
      url: weather.url,
      auth: 'set',
      allowedTools: ['echo', 'broken'],
      timeoutMs: 5000,
    });
    // The stored header still opens the server.
    expect((await asOperator('POST', `${ROUTE}/weather/refresh`)).status).toBe(200);
    expect(weather.authorizations.at(-1)).toBe(SECRET);

    const moved = await asOperator('PATCH', `${ROUTE}/weather`, { url: open.url, authHeader: null });
    expect(moved).toMatchObject({ status: 200, body: { url: open.url, auth: 'none', state: 'ready' } });
    expect(open.authorizations.at(-1)).toBeUndefined();
    const rotated = await asOperator('PATCH', `${ROUTE}/weather`, { url: weather.url, authHeader: SECRET });
    expect(rotated).toMatchObject({ status: 200, body: { url: weather.url, auth: 'set' } });
    expect(JSON.stringify(rotated.body)).not.toContain('weather-secret');
    expect(await asOperator('PATCH', `${ROUTE}/nothing`, { timeoutSeconds: 5 })).toMatchObject({
      status: 404,
      body: { error: { code: 'not_found' } },
    });
  });

  it('refreshes the tool list; a server that does not answer is 502 upstream_api_error (not a 500) and shows failing with the reason, its recorded tools kept', async () => {
    await addWeather();
    weather.mode = 'unavailable';
    const failed = await asOperator('POST', `${ROUTE}/weather/refresh`);
    expect(failed).toMatchObject({
      status: 502,
      body: { error: { code: 'upstream_api_error', type: 'upstream_error' } },
    });
    expect(failed.body.error?.message).toMatch(/did not answer as an MCP server: HTTP 503/);
    const shown = await asOperator('GET', `${ROUTE}/weather`);
    expect(shown.body).toMatchObject({ state: 'failing', lastError: expect.stringContaining('HTTP 503') });
    expect(toolsOf(shown.body).filter(([, isAllowed]) => isAllowed)).toEqual([
      ['show_weather', true, true, 'weather__show_weather'],
      ['echo', true, true, 'weather__echo'],
    ]);
    // The agent still offers the recorded tools (a server that is down at turn start keeps them).
    expect((await cli().get('weather')).agentTools).toEqual(['weather__show_weather', 'weather__echo']);

    weather.mode = 'up';
    const refreshed = await asOperator('POST', `${ROUTE}/weather/refresh`);
    expect(refreshed).toMatchObject({ status: 200, body: { state: 'ready', lastError: null } });
    expect(Date.parse(refreshed.body['lastRefreshedAt'] as string)).toBeGreaterThanOrEqual(
      Date.parse(shown.body['lastRefreshedAt'] as string),
    );
    expect(await asOperator('POST', `${ROUTE}/nothing/refresh`)).toMatchObject({
      status: 404,
      body: { error: { code: 'not_found' } },
    });
  });

  it('refuses what platformctl refuses: a wildcard, an unknown tool, bad names, URLs, headers and timeouts (400 invalid_parameter), a taken name (409), a server that is not MCP (502)', async () => {
    await addWeather(['echo']);
    const base = { name: 'other', url: open.url, allowedTools: ['echo'] };
    const refusals: [Record<string, unknown>, number, string][] = [
      [{ ...base, allowedTools: ['*'] }, 400, 'invalid_parameter'],
      [{ ...base, allowedTools: [] }, 400, 'invalid_parameter'],
      [{ ...base, allowedTools: 'echo' }, 400, 'invalid_parameter'],
      [{ ...base, allowedTools: [42] }, 400, 'invalid_parameter'],
      [{ ...base, allowedTools: ['echo\u0000'] }, 400, 'invalid_parameter'],
      [{ ...base, allowedTools: ['ec ho'] }, 400, 'invalid_parameter'],
      [{ ...base, allowedTools: ['echo', 'forecast'] }, 400, 'invalid_parameter'],
      [{ ...base, allowedTools: Array.from({ length: 129 }, (_, i) => `tool${i}`) }, 400, 'invalid_parameter'],
      [{ ...base, allowedTools: undefined }, 400, 'invalid_parameter'],
      [{ ...base, name: 'Other!' }, 400, 'invalid_parameter'],
      [{ ...base, name: '../etc' }, 400, 'invalid_parameter'],
      [{ ...base, name: 'n'.repeat(33) }, 400, 'invalid_parameter'],
      [{ ...base, name: 'tab\tname' }, 400, 'invalid_parameter'],
      [{ ...base, name: undefined }, 400, 'invalid_parameter'],
      [{ ...base, url: 'ftp://example.com/mcp' }, 400, 'invalid_parameter'],
      [{ ...base, url: 'not a url' }, 400, 'invalid_parameter'],
      [{ ...base, url: `http://u:p@${new URL(open.url).host}/mcp` }, 400, 'invalid_parameter'],
      [{ ...base, url: `https://example.com/${'x'.repeat(2048)}` }, 400, 'invalid_parameter'],
      [{ ...base, url: 42 }, 400, 'invalid_parameter'],
      [{ ...base, authHeader: 'Bearer\nx' }, 400, 'invalid_parameter'],
      [{ ...base, authHeader: '' }, 400, 'invalid_parameter'],
      [{ ...base, authHeader: 'b'.repeat(8193) }, 400, 'invalid_parameter'],
      [{ ...base, timeoutSeconds: 0 }, 400, 'invalid_parameter'],
      [{ ...base, timeoutSeconds: 301 }, 400, 'invalid_parameter'],
      [{ ...base, timeoutSeconds: 1.5 }, 400, 'invalid_parameter'],
      [{ ...base, timeoutSeconds: '5' }, 400, 'invalid_parameter'],
      [{ ...base, name: 'weather' }, 409, 'conflict'],
      [{ ...base, url: 'http://127.0.0.1:9/mcp' }, 502, 'upstream_api_error'],
      // Without the header the server answers 401.
      [{ ...base, url: weather.url }, 502, 'upstream_api_error'],
    ];
    for (const [body, status, code] of refusals) {
      const answer = await asOperator('POST', ROUTE, body);
      expect([body, answer.status, answer.body.error?.code]).toEqual([body, status, code]);
    }
    expect((await cli().list()).map((item) => item.name)).toEqual(['weather']);
  });

  it('applies the address rule of tool servers to the route as to platformctl: loopback, localhost and link-local are refused (400 invalid_parameter, address_not_allowed) unless TOOLSERVER_ALLOW_PRIVATE_ADDRESSES=true, sending them nothing', async () => {
    const asked = open.methods.length;
    for (const url of [
      open.url,
      open.url.replace('127.0.0.1', 'localhost'),
      'http://169.254.169.254/mcp',
      'http://[::1]/mcp',
    ]) {
      const answer = await asOperatorOfStrict('POST', ROUTE, { name: 'inside', url, allowedTools: ['echo'] });
      expect([url, answer.status, answer.body.error?.code]).toEqual([url, 400, 'invalid_parameter']);
      expect(answer.body.error?.message).toMatch(
        /a (loopback|link-local) address: tool servers must be on public addresses unless TOOLSERVER_ALLOW_PRIVATE_ADDRESSES=true/,
      );
    }
    expect(open.methods.length).toBe(asked);
    expect(await cli().list()).toEqual([]);

    // A server registered where private addresses are allowed is refused at every connection of this one.
    expect((await asOperator('POST', ROUTE, { name: 'inside', url: open.url, allowedTools: ['echo'] })).status).toBe(
      201,
    );
    const asking = open.methods.length;
    const refreshed = await asOperatorOfStrict('POST', `${ROUTE}/inside/refresh`);
    expect([refreshed.status, refreshed.body.error?.code]).toEqual([400, 'invalid_parameter']);
    expect(refreshed.body.error?.message).toMatch(/loopback address/);
    const moved = await asOperatorOfStrict('PATCH', `${ROUTE}/inside`, { url: 'http://10.0.0.7/mcp' });
    expect([moved.status, moved.body.error?.code]).toEqual([400, 'invalid_parameter']);
    expect(open.methods.length).toBe(asking);
    expect((await asOperatorOfStrict('GET', `${ROUTE}/inside`)).body).toMatchObject({
      url: open.url,
      state: 'failing',
      lastError: expect.stringContaining('loopback address'),
    });
  });

  it('refuses an auth header where admin-service has no TOOLSERVER_SECRET_KEY (400 invalid_request), before connecting', async () => {
    const answer = await asOperatorOfStrict('POST', ROUTE, {
      name: 'public',
      url: 'https://tools.example.com/mcp',
      authHeader: 'Bearer x',
      allowedTools: ['echo'],
    });
    expect(answer).toMatchObject({ status: 400, body: { error: { code: 'invalid_request' } } });
    expect(answer.body.error?.message).toMatch(/set TOOLSERVER_SECRET_KEY/);
  });

  it('refuses hostile requests: a body over 2 MB (413), one nested too deep (400), a name with a path in it (404)', async () => {
    await addWeather(['echo']);
    const oversized = JSON.stringify({ name: 'big', url: open.url, allowedTools: ['echo'], pad: 'x'.repeat(3 << 20) });
    expect((await asOperator('POST', ROUTE, oversized)).status).toBe(413);
    const deep = `{"name":"deep","url":"${open.url}","allowedTools":${'['.repeat(100)}${']'.repeat(100)}}`;
    expect((await asOperator('POST', ROUTE, deep)).body.error?.code).toBe('invalid_json');
    for (const name of ['..%2Fweather', 'weather%00', '%2e%2e', 'WEATHER']) {
      const answer = await asOperator('GET', `${ROUTE}/${name}`);
      expect([name, answer.status, answer.body.error?.code]).toEqual([name, 404, 'not_found']);
    }
    expect((await cli().list()).map((item) => item.name)).toEqual(['weather']);
  });

  it('removes a server by name (its tools are no longer offered), 404 for one that is not there, and audits every change without the auth header', async () => {
    const since = new Date();
    await addWeather(['echo']);
    await asOperator('PATCH', `${ROUTE}/weather`, { authHeader: SECRET, allowedTools: ['echo', 'broken'] });
    await asOperator('POST', `${ROUTE}/weather/refresh`);
    expect(await asOperator('DELETE', `${ROUTE}/weather`)).toEqual({
      status: 200,
      body: { name: 'weather', deleted: true },
    });
    expect(await cli().list()).toEqual([]);
    expect(await asOperator('DELETE', `${ROUTE}/weather`)).toMatchObject({
      status: 404,
      body: { error: { code: 'not_found' } },
    });
    const rows = await auditRows(stack, 'tool-servers/', since, 4);
    expect(rows).toEqual([
      {
        resource: 'tool-servers/create',
        action: 'create',
        tenantId: null,
        meta: { name: 'weather', url: weather.url, allowedTools: ['echo'], authHeader: 'set' },
      },
      {
        resource: 'tool-servers/update',
        action: 'update',
        tenantId: null,
        meta: { name: 'weather', allowedTools: ['echo', 'broken'], authHeader: 'set' },
      },
      { resource: 'tool-servers/refresh', action: 'refresh', tenantId: null, meta: { name: 'weather' } },
      { resource: 'tool-servers/delete', action: 'delete', tenantId: null, meta: { name: 'weather' } },
    ]);
    expect(JSON.stringify(rows)).not.toContain('weather-secret');
  });
});
