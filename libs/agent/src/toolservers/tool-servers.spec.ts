import { EXTERNAL_UI_ALT_TEXT, MCP_APP_MIME_TYPE } from '@fed/contracts';
import { type ClaimedTurn, ExternalUiUnavailableError } from '@fed/conversations';
import { createLogger } from '@fed/observability';
import { schemaDrift, useTestDatabase } from '@fed/persistence/testing';
import { McpAppsServer, WEATHER_HTML, WEATHER_UI_URI } from '@fed/testing';
import { randomBytes, randomUUID } from 'node:crypto';
import { type ToolContext, type ToolOutcome } from '../runtime/tools/agent-tool';
import { checkUiResource } from './mcp-ui';
import { ToolServerEntity, toolServerEntities } from './tool-server.entity';
import { ToolServerRepository } from './tool-server.repository';
import { ToolServerSecrets, toolServerSecretsFor } from './tool-server-secrets';
import { ToolServerTurnTools } from './tool-server-turn-tools';
import { ExternalUiRefusedError, ToolServerUiSource } from './tool-server-ui-source';
import { ToolServersAdminService } from './tool-servers-admin.service';
import { ToolServersError } from './tool-servers.errors';

const logger = createLogger({ service: 'test', level: 'silent' });
const agentTurn = { options: { agentMode: true } } as ClaimedTurn;

function context(callId = 'call_1', signal = new AbortController().signal): ToolContext {
  return {
    tenantId: null,
    userId: 'u',
    conversationId: randomUUID(),
    messageId: randomUUID(),
    privateMode: false,
    signal,
    callId,
    deliverables: { save: () => Promise.reject(new Error('no deliverables here')) },
  };
}

async function refusal(work: Promise<unknown>): Promise<string> {
  const error = await work.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof ToolServersError)) throw new Error(`expected a refusal, got ${String(error)}`);
  return `${error.code}: ${error.message}`;
}

describe('external MCP tool servers', () => {
  const database = useTestDatabase({ entities: toolServerEntities });
  const secrets = new ToolServerSecrets(randomBytes(32));
  let server: McpAppsServer;
  let repository: ToolServerRepository;
  let admin: ToolServersAdminService;

  beforeAll(async () => {
    server = await McpAppsServer.start({ authHeader: 'Bearer weather-secret' });
    repository = new ToolServerRepository(database.dataSource);
    admin = new ToolServersAdminService(repository, secrets);
  });
  afterAll(async () => {
    await server?.close();
  });
  beforeEach(async () => {
    server.mode = 'up';
    server.failResourceReads = false;
    server.ui = { html: WEATHER_HTML, mimeType: MCP_APP_MIME_TYPE };
    await database.dataSource.query('DELETE FROM agent.tool_servers');
  });

  const addWeather = (allow = 'show_weather,echo,broken,embedded_view', timeoutSeconds?: string) =>
    admin.add({ name: 'weather', url: server.url, authHeader: 'Bearer weather-secret', allow, timeoutSeconds });

  async function openTools(options: { uiMaxBytes?: number } = {}) {
    return new ToolServerTurnTools([], repository, secrets, logger, options.uiMaxBytes).open(
      agentTurn,
      new AbortController().signal,
    );
  }

  async function call(name: string, args: Record<string, unknown>, options: { uiMaxBytes?: number } = {}) {
    const { toolbox, close } = await openTools(options);
    try {
      const prepared = toolbox.prepare({
        id: 'call_1',
        type: 'function',
        function: { name, arguments: JSON.stringify(args) },
      });
      if (!prepared.ok) throw new Error(prepared.error);
      return await prepared.tool.run(prepared.args, context());
    } finally {
      await close();
    }
  }

  it('keeps its table as the migration made it', async () => {
    expect(await schemaDrift(toolServerEntities)).toEqual([]);
  });

  describe('the registry', () => {
    it('records the allowed tools that the server lists, and never shows the auth header back', async () => {
      const item = await addWeather('show_weather,echo');
      expect(item).toMatchObject({
        name: 'weather',
        auth: 'set',
        allowedTools: ['show_weather', 'echo'],
        agentTools: ['weather__show_weather', 'weather__echo'],
        timeoutMs: 15_000,
      });
      expect(JSON.stringify(await admin.list())).not.toContain('weather-secret');
      const row = (await repository.findByName('weather')) as ToolServerEntity;
      expect(row.authHeader?.toString('latin1')).not.toContain('weather-secret');
      expect(row.tools.find((tool) => tool.name === 'show_weather')).toMatchObject({
        uiResourceUri: WEATHER_UI_URI,
        ui: { visibility: ['model', 'app'] },
        inputSchema: expect.objectContaining({ properties: { city: { type: 'string' } } }),
      });
      expect(server.authorizations.at(-1)).toBe('Bearer weather-secret');
    });

    it('refuses allowed tool names the server does not offer, naming the ones it does', async () => {
      expect(await refusal(addWeather('echo,forecast'))).toMatch(
        /^unknown_tool: weather offers no tool named forecast \(it offers: .*show_weather.*echo/,
      );
      expect(await admin.list()).toEqual([]);
    });

    it('refuses `*`, bad names, bad URLs and a server that does not answer', async () => {
      expect(await refusal(addWeather('*'))).toMatch(/^invalid_allowed_tools: name each allowed tool/);
      expect(await refusal(admin.add({ name: 'Weather!', url: server.url, allow: 'echo' }))).toMatch(/^invalid_name/);
      expect(await refusal(admin.add({ name: 'w', url: 'ftp://example.com', allow: 'echo' }))).toMatch(/^invalid_url/);
      expect(await refusal(admin.add({ name: 'w', url: 'http://u:p@127.0.0.1/mcp', allow: 'echo' }))).toMatch(
        /^invalid_url: put credentials in --auth-header/,
      );
      expect(await refusal(admin.add({ name: 'w', url: server.url, allow: 'echo', authHeader: 'Bearer\nx' }))).toMatch(
        /^invalid_auth_header/,
      );
      expect(await refusal(addWeather('echo', '0'))).toMatch(/^invalid_timeout/);
      // Without the header the server answers 401.
      expect(await refusal(admin.add({ name: 'w', url: server.url, allow: 'echo' }))).toMatch(/^server_unreachable/);
      server.mode = 'unavailable';
      expect(await refusal(addWeather('echo'))).toMatch(/^server_unreachable: .* HTTP 503/);
      expect(await admin.list()).toEqual([]);
    });

    it('refuses a second server of the same name, and removes and refreshes by name', async () => {
      await addWeather('echo');
      expect(await refusal(addWeather('echo'))).toMatch(/^server_exists/);
      const refreshed = await admin.refresh('weather');
      expect(refreshed).toMatchObject({ missing: [], item: { agentTools: ['weather__echo'] } });
      await admin.remove('weather');
      expect(await refusal(admin.remove('weather'))).toMatch(/^server_not_found/);
      expect(await refusal(admin.refresh('weather'))).toMatch(/^server_not_found/);
    });

    it('refuses an auth header when there is no key to seal it with', async () => {
      const keyless = new ToolServersAdminService(repository, undefined);
      expect(await refusal(keyless.add({ name: 'w', url: server.url, allow: 'echo', authHeader: 'Bearer x' }))).toMatch(
        /^no_secret_key/,
      );
    });
  });

  describe('the turn tools', () => {
    it('offers each allowed recorded tool as <server>__<tool>, from the database even when the server is down', async () => {
      await addWeather('show_weather,echo');
      server.mode = 'unavailable';
      const { toolbox, close } = await openTools();
      expect(toolbox.definitions().map((tool) => tool.function.name)).toEqual([
        'weather__show_weather',
        'weather__echo',
      ]);
      const echo = toolbox.definitions()[1]?.function;
      expect(echo?.description).toBe('Echoes its text.');
      expect(echo?.parameters).toMatchObject({ type: 'object', properties: { text: { type: 'string' } } });
      expect(echo?.parameters).not.toHaveProperty('$schema');
      await close();
    });

    it('skips a tool whose agent name would be longer than 64 characters', async () => {
      await addWeather('echo');
      const long = 'a'.repeat(60);
      await database.dataSource.query(
        `UPDATE agent.tool_servers SET allowed_tools = allowed_tools || $1::text, tools = tools || $2::jsonb`,
        [long, JSON.stringify([{ name: long, description: '', inputSchema: { type: 'object' } }])],
      );
      const { toolbox, close } = await openTools();
      expect(toolbox.definitions().map((tool) => tool.function.name)).toEqual(['weather__echo']);
      await close();
    });

    it('gives the model the tool text, connecting once per server per turn', async () => {
      await addWeather('echo');
      const initializes = server.methods.filter((method) => method === 'initialize').length;
      const { toolbox, close } = await openTools();
      const prepared = toolbox.prepare({
        id: 'c',
        type: 'function',
        function: { name: 'weather__echo', arguments: '{"text":"hi"}' },
      });
      if (!prepared.ok) throw new Error(prepared.error);
      const first = await prepared.tool.run(prepared.args, context());
      const second = await prepared.tool.run({ text: 'again' }, context());
      await close();
      expect(first).toMatchObject({ status: 'completed', content: 'echo: hi' });
      expect(second).toMatchObject({ status: 'completed', content: 'echo: again' });
      expect(server.methods.filter((method) => method === 'initialize').length - initializes).toBe(1);
    });

    it('shows the declared MCP Apps UI as an external resource, keeping the HTML from the model', async () => {
      await addWeather('show_weather');
      const outcome = (await call('weather__show_weather', { city: 'Lyon' })) as Extract<
        ToolOutcome,
        { status: 'completed' }
      >;
      expect(outcome.status).toBe('completed');
      expect(outcome.content).toBe('Sunny and 21 °C in Lyon.');
      expect(outcome.uiResource).toEqual({
        resource: {
          type: 'html',
          origin: 'external',
          altText: EXTERNAL_UI_ALT_TEXT,
          tool_call_id: 'call_1',
          uri: WEATHER_UI_URI,
          tool_name: 'show_weather',
          server_name: 'weather',
          mime_type: MCP_APP_MIME_TYPE,
          meta: { csp: { connectDomains: ['https://api.weather.example'] }, prefersBorder: true },
          capabilities: { visibility: ['model', 'app'], interaction_mode: 'closed' },
          size: Buffer.byteLength(WEATHER_HTML, 'utf8'),
        },
        html: WEATHER_HTML,
      });
    });

    it('takes a ui:// resource embedded in the result', async () => {
      await addWeather('embedded_view');
      const outcome = (await call('weather__embedded_view', {})) as Extract<ToolOutcome, { status: 'completed' }>;
      expect(outcome.content).toBe('Here is the view.');
      expect(outcome.uiResource?.resource).toMatchObject({ uri: 'ui://weather/embedded.html', origin: 'external' });
      expect(outcome.uiResource?.html).toBe(WEATHER_HTML);
    });

    it('shows no UI resource of the wrong MIME type or over the size limit: the text only', async () => {
      await addWeather('show_weather');
      server.ui = { html: WEATHER_HTML, mimeType: 'text/html' };
      const wrongType = (await call('weather__show_weather', { city: 'Oslo' })) as Extract<
        ToolOutcome,
        { status: 'completed' }
      >;
      expect(wrongType).toMatchObject({ status: 'completed', content: 'Sunny and 21 °C in Oslo.' });
      expect(wrongType.uiResource).toBeUndefined();

      server.ui = { html: WEATHER_HTML, mimeType: MCP_APP_MIME_TYPE };
      const oversize = (await call('weather__show_weather', { city: 'Oslo' }, { uiMaxBytes: 20 })) as Extract<
        ToolOutcome,
        { status: 'completed' }
      >;
      expect(oversize.status).toBe('completed');
      expect(oversize.uiResource).toBeUndefined();
    });

    it('announces the UI without size and HTML when the server fails to read it now', async () => {
      await addWeather('show_weather');
      server.failResourceReads = true;
      const outcome = (await call('weather__show_weather', { city: 'Rome' })) as Extract<
        ToolOutcome,
        { status: 'completed' }
      >;
      expect(outcome.uiResource?.html).toBeUndefined();
      expect(outcome.uiResource?.resource).toMatchObject({ uri: WEATHER_UI_URI, origin: 'external' });
      expect(outcome.uiResource?.resource).not.toHaveProperty('size');
    });

    it('fails the task when the tool reports isError', async () => {
      await addWeather('broken');
      expect(await call('weather__broken', {})).toMatchObject({
        status: 'failed',
        error: 'the forecast service is down',
        label: { title: 'broken failed' },
      });
    });

    it('fails the task when the server is down or does not answer in time', async () => {
      await addWeather('echo', '1');
      server.mode = 'unavailable';
      expect(await call('weather__echo', { text: 'x' })).toMatchObject({
        status: 'failed',
        error: expect.stringContaining('HTTP 503'),
      });
      server.mode = 'hang';
      const started = Date.now();
      expect(await call('weather__echo', { text: 'x' })).toMatchObject({
        status: 'failed',
        error: expect.stringContaining('did not answer in time'),
      });
      expect(Date.now() - started).toBeLessThan(5_000);
    });
  });

  describe('the external UI source', () => {
    it('reads the resource again from its server', async () => {
      await addWeather('show_weather');
      const source = new ToolServerUiSource(repository, secrets);
      expect(await source.read({ serverName: 'weather', uri: WEATHER_UI_URI })).toEqual({
        html: WEATHER_HTML,
        mimeType: MCP_APP_MIME_TYPE,
      });
    });

    it('says unavailable when the server is down, and refuses servers that are not approved', async () => {
      await addWeather('show_weather');
      const source = new ToolServerUiSource(repository, secrets);
      server.mode = 'unavailable';
      await expect(source.read({ serverName: 'weather', uri: WEATHER_UI_URI })).rejects.toBeInstanceOf(
        ExternalUiUnavailableError,
      );
      await expect(source.read({ serverName: 'other', uri: WEATHER_UI_URI })).rejects.toBeInstanceOf(
        ExternalUiRefusedError,
      );
      server.mode = 'up';
      server.ui = { html: WEATHER_HTML, mimeType: 'text/plain' };
      await expect(source.read({ serverName: 'weather', uri: WEATHER_UI_URI })).rejects.toBeInstanceOf(
        ExternalUiRefusedError,
      );
    });
  });
});

describe('the form of an MCP Apps UI resource', () => {
  const html = '<p>hi</p>';
  const valid = { uri: 'ui://a/b.html', mimeType: MCP_APP_MIME_TYPE, text: html };

  it('accepts a ui:// URI with the mcp-app MIME type and text, and counts UTF-8 bytes', () => {
    expect(checkUiResource('ui://a/b.html', [{ ...valid, text: 'é' }])).toMatchObject({ ok: true, size: 2 });
  });

  it.each([
    ['a URI that is not ui://', 'https://a/b.html', [{ ...valid, uri: 'https://a/b.html' }]],
    ['another MIME type', 'ui://a/b.html', [{ ...valid, mimeType: 'text/html' }]],
    ['no text', 'ui://a/b.html', [{ uri: 'ui://a/b.html', mimeType: MCP_APP_MIME_TYPE, blob: 'PHA+' }]],
    ['a NUL character', 'ui://a/b.html', [{ ...valid, text: 'a\u0000b' }]],
    ['no content', 'ui://a/b.html', []],
  ])('refuses %s', (_case, uri, contents) => {
    expect(checkUiResource(uri, contents)).toMatchObject({ ok: false });
  });

  it('refuses HTML over the size limit', () => {
    expect(checkUiResource('ui://a/b.html', [{ ...valid, text: 'é'.repeat(6) }], 11)).toMatchObject({ ok: false });
    expect(checkUiResource('ui://a/b.html', [{ ...valid, text: 'é'.repeat(6) }], 12)).toMatchObject({ ok: true });
  });
});

describe('sealed auth headers', () => {
  it('open only with the same key, for the same server', async () => {
    const secrets = new ToolServerSecrets(randomBytes(32));
    const sealed = await secrets.seal('Bearer x', 'server-1');
    expect(await secrets.open(sealed, 'server-1')).toBe('Bearer x');
    expect(await secrets.open(sealed, 'server-2')).toBeUndefined();
    expect(await new ToolServerSecrets(randomBytes(32)).open(sealed, 'server-1')).toBeUndefined();
  });
});

describe('the auth header key', () => {
  it('is TOOLSERVER_SECRET_KEY, or in platform and platformctl one derived from KEY_ENCRYPTION_KEY', async () => {
    const encryptionKey = randomBytes(32).toString('base64');
    const derived = toolServerSecretsFor({ app: 'platform', dataDir: '/nonexistent', signingKeys: { encryptionKey } });
    const again = toolServerSecretsFor({ app: 'platformctl', dataDir: '/nonexistent', signingKeys: { encryptionKey } });
    const sealed = await (derived as ToolServerSecrets).seal('Bearer x', 'id');
    expect(await (again as ToolServerSecrets).open(sealed, 'id')).toBe('Bearer x');

    const configured = randomBytes(32).toString('base64');
    const runtime = toolServerSecretsFor({ app: 'agent-runtime', toolServers: { secretKey: configured } });
    const ctl = toolServerSecretsFor({
      app: 'platformctl',
      toolServers: { secretKey: configured },
      signingKeys: { encryptionKey },
    });
    expect(await runtime?.open(await (ctl as ToolServerSecrets).seal('Bearer y', 'id'), 'id')).toBe('Bearer y');
    // The distributed services never derive one: they do not hold KEY_ENCRYPTION_KEY.
    expect(toolServerSecretsFor({ app: 'agent-runtime' })).toBeUndefined();
  });
});
