import { EXTERNAL_UI_ALT_TEXT, MCP_APP_MIME_TYPE } from '@fed/contracts';
import {
  type ClaimedTurn,
  ExternalUiGoneError,
  ExternalUiTooLargeError,
  ExternalUiUnavailableError,
} from '@fed/conversations';
import { createLogger } from '@fed/observability';
import { schemaDrift, useTestDatabase } from '@fed/persistence/testing';
import { McpAppsServer, WEATHER_HTML, WEATHER_UI_URI } from '@fed/testing';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { randomBytes, randomUUID } from 'node:crypto';
import { type ServerResponse, createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import { type ToolContext, type ToolOutcome } from '../runtime/tools/agent-tool';
import { RESULT_MAX_CHARS } from './external-tool';
import { UI_MAX_BYTES, checkUiResource } from './mcp-ui';
import { ToolServerEntity, toolServerEntities } from './tool-server.entity';
import { RESULT_ANSWER_MAX_BYTES, resourceAnswerMaxBytes } from './tool-server-fetch';
import { ToolServerNetwork, addressKind } from './tool-server-network';
import { ToolServerRepository } from './tool-server.repository';
import { ToolServerSecrets, toolServerSecretsFor } from './tool-server-secrets';
import { ToolServerTurnTools } from './tool-server-turn-tools';
import { ExternalUiRefusedError, ToolServerUiSource } from './tool-server-ui-source';
import { ToolServersAdminService } from './tool-servers-admin.service';
import { ToolServersError } from './tool-servers.errors';

const logger = createLogger({ service: 'test', level: 'silent' });
// The servers of these tests are on loopback: as with TOOLSERVER_ALLOW_PRIVATE_ADDRESSES=true.
const privateAllowed = ToolServerNetwork.of(true);
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

/**
 * A bare MCP endpoint: answers `initialize`, accepts notifications when `answers` has a result for
 * `tools/call`, answers each method `answers` names, and never answers anything else. With `tools/call`
 * unanswered, the `notifications/initialized` POST that the SDK's `connect` awaits without a timeout hangs.
 */
async function startBareServer(
  answers: Record<string, unknown> = {},
): Promise<{ url: string; close(): Promise<void> }> {
  const hung = new Set<ServerResponse>();
  const results: Record<string, unknown> = {
    initialize: {
      protocolVersion: LATEST_PROTOCOL_VERSION,
      capabilities: { tools: {} },
      serverInfo: { name: 'bare', version: '1.0.0' },
    },
    ...answers,
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let message: { id?: unknown; method?: string } = {};
      try {
        message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof message;
      } catch {
        // not JSON: hangs like everything else
      }
      const method = req.method === 'POST' ? message.method : undefined;
      if (method !== undefined && message.id === undefined && 'tools/call' in answers) {
        res.writeHead(202).end();
      } else if (method !== undefined && method in results) {
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: results[method] }));
      } else {
        hung.add(res);
        res.on('close', () => hung.delete(res));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: async () => {
      for (const res of hung) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Answers `initialize`, then nothing: not even the `notifications/initialized` that follows. */
const startStallingServer = () => startBareServer();

describe('external MCP tool servers', () => {
  const database = useTestDatabase({ entities: toolServerEntities });
  const secrets = new ToolServerSecrets(randomBytes(32));
  let server: McpAppsServer;
  let repository: ToolServerRepository;
  let admin: ToolServersAdminService;

  beforeAll(async () => {
    server = await McpAppsServer.start({ authHeader: 'Bearer weather-secret' });
    repository = new ToolServerRepository(database.dataSource);
    admin = new ToolServersAdminService(repository, secrets, { network: privateAllowed });
  });
  afterAll(async () => {
    await server?.close();
  });
  beforeEach(async () => {
    server.mode = 'up';
    server.failResourceReads = false;
    server.ui = { html: WEATHER_HTML, mimeType: MCP_APP_MIME_TYPE };
    server.flood = undefined;
    await database.dataSource.query('DELETE FROM agent.tool_servers');
  });

  const addWeather = (allow = 'show_weather,echo,broken,embedded_view', timeoutSeconds?: string) =>
    admin.add({ name: 'weather', url: server.url, authHeader: 'Bearer weather-secret', allow, timeoutSeconds });

  async function openTools(options: { uiMaxBytes?: number; network?: ToolServerNetwork } = {}) {
    return new ToolServerTurnTools([], repository, secrets, logger, { network: privateAllowed, ...options }).open(
      agentTurn,
      new AbortController().signal,
    );
  }

  async function call(
    name: string,
    args: Record<string, unknown>,
    options: { uiMaxBytes?: number; network?: ToolServerNetwork } = {},
  ) {
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

  /** A server row as `add` leaves it, without asking the server (it may not answer). */
  async function register(name: string, url: string, tools: string[], timeoutMs = 1_000): Promise<void> {
    const now = new Date();
    const server = Object.assign(new ToolServerEntity(), {
      id: randomUUID(),
      name,
      url,
      authHeader: null,
      allowedTools: tools,
      tools: tools.map((tool) => ({ name: tool, description: '', inputSchema: { type: 'object' } })),
      enabled: true,
      timeoutMs,
      createdAt: now,
      updatedAt: now,
    });
    expect(await repository.insert(server)).toBe(true);
  }

  /** The promise's outcome, or a failure after `ms`: a hang fails the test quickly. */
  function within<T>(ms: number, promise: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`still waiting after ${ms} ms`)), ms);
    });
    return Promise.race([promise, late]).finally(() => clearTimeout(timer));
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

    it('refuses a tool whose description or schema holds text that cannot be stored, saying which', async () => {
      const bare = await startBareServer({
        'tools/list': {
          tools: [
            { name: 'nul', description: 'bad\u0000text', inputSchema: { type: 'object' } },
            { name: 'surrogate', description: 'fine', inputSchema: { type: 'object', title: 'x\ud800' } },
          ],
        },
        'tools/call': {},
      });
      try {
        expect(await refusal(admin.add({ name: 'bare', url: bare.url, allow: 'nul' }))).toMatch(
          /^unstorable_tool: the server describes nul with text that cannot be stored/,
        );
        expect(await refusal(admin.add({ name: 'bare', url: bare.url, allow: 'surrogate' }))).toMatch(
          /^unstorable_tool: the server describes surrogate/,
        );
        expect(await admin.list()).toEqual([]);
      } finally {
        await bare.close();
      }
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

    it('refuses a server that answers initialize and then hangs, within twice its timeout', async () => {
      const stalling = await startStallingServer();
      try {
        const adding = admin.add({ name: 'stuck', url: stalling.url, allow: 'echo', timeoutSeconds: '1' });
        expect(await within(5_000, refusal(adding))).toMatch(/^server_unreachable/);
      } finally {
        await stalling.close();
      }
    });

    it('refuses an auth header when there is no key to seal it with', async () => {
      const keyless = new ToolServersAdminService(repository, undefined, { network: privateAllowed });
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

    it('skips a tool whose stored input schema does not compile, offering the others (one $id in two schemas is no conflict)', async () => {
      await register('schemas', server.url, ['good', 'bad_type', 'bad_required', 'first_id', 'same_id']);
      const schemas: Record<string, unknown> = {
        good: { type: 'object', properties: { text: { type: 'string' } } },
        bad_type: { type: 'object', properties: { text: { type: 'text' } } },
        bad_required: { type: 'object', required: 'text' },
        first_id: { $id: 'urn:schema:one', type: 'object' },
        same_id: { $id: 'urn:schema:one', type: 'object' },
      };
      await database.dataSource.query(`UPDATE agent.tool_servers SET tools = $1::jsonb WHERE name = 'schemas'`, [
        JSON.stringify(Object.entries(schemas).map(([name, inputSchema]) => ({ name, description: '', inputSchema }))),
      ]);
      const { toolbox, close } = await openTools();
      expect(toolbox.definitions().map((tool) => tool.function.name)).toEqual([
        'schemas__good',
        'schemas__first_id',
        'schemas__same_id',
      ]);
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
        // What the view is given (ui/notifications/tool-result): the tool's result as MCP returned it.
        viewResult: { content: [{ type: 'text', text: 'Sunny and 21 °C in Lyon.' }] },
      });
    });

    it('takes a ui:// resource embedded in the result, and keeps it out of the result its view is given', async () => {
      await addWeather('embedded_view');
      const outcome = (await call('weather__embedded_view', {})) as Extract<ToolOutcome, { status: 'completed' }>;
      expect(outcome.content).toBe('Here is the view.');
      expect(outcome.uiResource?.resource).toMatchObject({ uri: 'ui://weather/embedded.html', origin: 'external' });
      expect(outcome.uiResource?.html).toBe(WEATHER_HTML);
      expect(JSON.stringify(outcome.uiResource?.viewResult)).not.toContain('ui://');
      expect(outcome.uiResource?.viewResult?.content).toEqual([{ type: 'text', text: 'Here is the view.' }]);
    });

    it('serves no UI resource of the wrong MIME type or over the size limit: its alternative text only', async () => {
      await addWeather('show_weather');
      server.ui = { html: WEATHER_HTML, mimeType: 'text/html' };
      const wrongType = (await call('weather__show_weather', { city: 'Oslo' })) as Extract<
        ToolOutcome,
        { status: 'completed' }
      >;
      expect(wrongType).toMatchObject({ status: 'completed', content: 'Sunny and 21 °C in Oslo.' });
      expect(wrongType.uiResource).toMatchObject({ unservable: true, resource: { altText: EXTERNAL_UI_ALT_TEXT } });
      expect(wrongType.uiResource?.html).toBeUndefined();

      server.ui = { html: WEATHER_HTML, mimeType: MCP_APP_MIME_TYPE };
      const oversize = (await call('weather__show_weather', { city: 'Oslo' }, { uiMaxBytes: 20 })) as Extract<
        ToolOutcome,
        { status: 'completed' }
      >;
      expect(oversize.status).toBe('completed');
      expect(oversize.uiResource).toMatchObject({ unservable: true });
      expect(oversize.uiResource?.html).toBeUndefined();
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

    it('never gives the model MCP Apps HTML, whatever URI the server puts it under', async () => {
      const html = '<!doctype html><p>an app view</p>';
      const bare = await startBareServer({
        'tools/call': {
          content: [
            { type: 'text', text: 'The view is ready.' },
            {
              type: 'resource',
              resource: { uri: 'https://views.example/app.html', mimeType: MCP_APP_MIME_TYPE, text: html },
            },
            { type: 'resource', resource: { uri: 'file:///notes.txt', mimeType: 'text/plain', text: 'a note' } },
          ],
        },
      });
      try {
        await register('bare', bare.url, ['view']);
        const outcome = await call('bare__view', {});
        expect(outcome).toMatchObject({ status: 'completed' });
        const content = (outcome as Extract<ToolOutcome, { status: 'completed' }>).content;
        expect(content).toContain('The view is ready.');
        expect(content).toContain('a note');
        expect(content).not.toContain('an app view');
      } finally {
        await bare.close();
      }
    });

    it('fails the task when the tool reports isError', async () => {
      await addWeather('broken');
      expect(await call('weather__broken', {})).toMatchObject({
        status: 'failed',
        error: 'the forecast service is down',
        label: { title: 'broken failed' },
      });
    });

    it('offers each agent tool name once: a name two servers would give is offered by neither, a built-in name never', async () => {
      // `a__b` + `c` and `a` + `b__c` are both `a__b__c`.
      await register('a__b', server.url, ['c', 'only_here']);
      await register('a', server.url, ['b__c']);
      await register('weather', server.url, ['echo']);
      const builtIn = {
        name: 'weather__echo',
        description: 'A built-in tool that happens to have this name.',
        parameters: { type: 'object' },
        describe: () => ({ title: 'Built in' }),
        run: async (): Promise<ToolOutcome> => ({ status: 'completed', content: 'built-in', label: { title: 'x' } }),
      };
      const { toolbox, close } = await new ToolServerTurnTools([builtIn], repository, secrets, logger, {
        network: privateAllowed,
      }).open(agentTurn, new AbortController().signal);
      expect(toolbox.definitions().map((tool) => tool.function.name)).toEqual(['weather__echo', 'a__b__only_here']);
      expect(toolbox.definitions()[0]?.function.description).toBe(builtIn.description);
      await close();
    });

    it('fails the call within the server timeout when the server answers initialize and then hangs', async () => {
      const stalling = await startStallingServer();
      try {
        await register('stuck', stalling.url, ['echo'], 1_000);
        const started = Date.now();
        expect(await within(10_000, call('stuck__echo', {}))).toMatchObject({
          status: 'failed',
          error: expect.stringContaining('did not answer in time'),
        });
        expect(Date.now() - started).toBeLessThan(4_000);
      } finally {
        await stalling.close();
      }
    });

    it('gives up a call to a hanging server at once when the turn is cancelled, and closes without waiting for it', async () => {
      const stalling = await startStallingServer();
      try {
        await register('stuck', stalling.url, ['echo'], 60_000);
        const { toolbox, close } = await openTools();
        const prepared = toolbox.prepare({
          id: 'c',
          type: 'function',
          function: { name: 'stuck__echo', arguments: '{}' },
        });
        if (!prepared.ok) throw new Error(prepared.error);
        const cancel = new AbortController();
        const running = prepared.tool.run(prepared.args, context('c', cancel.signal));
        setTimeout(() => cancel.abort(new Error('cancelled')), 200);
        await expect(within(3_000, running)).rejects.toThrow('cancelled');
        await within(1_000, close());
      } finally {
        await stalling.close();
      }
    });

    it('closes a turn whose call is still connecting without waiting for the server; the call fails', async () => {
      const stalling = await startStallingServer();
      try {
        await register('stuck', stalling.url, ['echo'], 60_000);
        const { toolbox, close } = await openTools();
        const prepared = toolbox.prepare({
          id: 'c',
          type: 'function',
          function: { name: 'stuck__echo', arguments: '{}' },
        });
        if (!prepared.ok) throw new Error(prepared.error);
        const running = prepared.tool.run(prepared.args, context('c'));
        await new Promise((resolve) => setTimeout(resolve, 200));
        await within(1_000, close());
        expect(await within(1_000, running)).toMatchObject({ status: 'failed' });
      } finally {
        await stalling.close();
      }
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

  describe('answers too large (bounded as they arrive)', () => {
    // Bytes the server may write past the bound before it sees the connection close: the two sockets'
    // buffers and a chunk or two in flight, never the 64 MiB it would send.
    const slack = 8 * 1024 * 1024;

    /** The flood the server wrote, once it stopped: cut off by the client, not sent whole. */
    async function floodStopped(): Promise<{ bytes: number; cut: boolean }> {
      const flood = server.floods.at(-1);
      if (!flood) throw new Error('the server was not asked');
      await within(15_000, flood.ended);
      return { bytes: flood.bytes, cut: flood.cut };
    }

    it.each([
      ['one JSON answer', 'json'],
      ['one SSE event', 'sse'],
      ['an endless slow stream of SSE notifications', 'trickle'],
    ] as const)(
      'fails the task with the reason when tools/call answers more than 8 MiB in %s, and stops reading there',
      async (_case, form) => {
        await addWeather('echo', '20');
        server.flood = { method: 'tools/call', form };
        const outcome = await within(15_000, call('weather__echo', { text: 'x' }));
        expect(outcome).toEqual({
          status: 'failed',
          error: 'The weather tool server could not run echo: its answer to tools/call is larger than 8 MiB.',
          label: { title: 'echo failed', description: expect.any(String) },
        });
        const { bytes, cut } = await floodStopped();
        expect({ cut, bytes: bytes < RESULT_ANSWER_MAX_BYTES + slack }).toEqual({ cut: true, bytes: true });
        expect(bytes).toBeGreaterThan(RESULT_ANSWER_MAX_BYTES);
      },
    );

    it('takes an answer within the bound: a 1 MiB text reaches the model cut to 100,000 characters', async () => {
      await addWeather('echo');
      server.flood = { method: 'tools/call', form: 'sse', totalBytes: 1024 * 1024 };
      const outcome = (await call('weather__echo', { text: 'x' })) as Extract<ToolOutcome, { status: 'completed' }>;
      expect([outcome.status, outcome.content.length]).toEqual(['completed', RESULT_MAX_CHARS]);
      expect(await floodStopped()).toMatchObject({ cut: false });
    });

    it.each(['json', 'sse'] as const)(
      'serves no UI when resources/read answers more than its bound (%s): the text only, reading stopped there',
      async (form) => {
        await addWeather('show_weather');
        server.flood = { method: 'resources/read', form };
        const outcome = (await within(15_000, call('weather__show_weather', { city: 'Oslo' }))) as Extract<
          ToolOutcome,
          { status: 'completed' }
        >;
        expect(outcome).toMatchObject({ status: 'completed', content: 'Sunny and 21 °C in Oslo.' });
        expect(outcome.uiResource).toMatchObject({ unservable: true, resource: { altText: EXTERNAL_UI_ALT_TEXT } });
        expect(outcome.uiResource?.html).toBeUndefined();
        const { bytes, cut } = await floodStopped();
        expect({ cut, bytes: bytes < resourceAnswerMaxBytes(UI_MAX_BYTES) + slack }).toEqual({
          cut: true,
          bytes: true,
        });
      },
    );

    it('refuses a UI resource retrieval whose answer is over its bound as too large (404 file_too_large)', async () => {
      await addWeather('show_weather');
      server.flood = { method: 'resources/read', form: 'sse' };
      const source = new ToolServerUiSource(repository, secrets, UI_MAX_BYTES, privateAllowed);
      const read = source.read({ serverName: 'weather', uri: WEATHER_UI_URI });
      await expect(within(15_000, read)).rejects.toThrow(
        new ExternalUiTooLargeError('weather: its answer to resources/read is larger than 4259840 bytes'),
      );
      expect(await floodStopped()).toMatchObject({ cut: true });
    });
  });

  describe('addresses (TOOLSERVER_ALLOW_PRIVATE_ADDRESSES off)', () => {
    const publicOnly = () => new ToolServersAdminService(repository, secrets);
    let open: McpAppsServer;
    const requestsSeen = () => server.methods.length + open.methods.length;

    beforeAll(async () => {
      open = await McpAppsServer.start();
    });
    afterAll(async () => {
      await open?.close();
    });

    it('refuses at registration a URL whose address is loopback, private, link-local or otherwise not public', async () => {
      const port = new URL(server.url).port;
      const refused: [string, string][] = [
        [`http://127.0.0.1:${port}/mcp`, '127.0.0.1 is a loopback address'],
        ['http://127.1/mcp', '127.0.0.1 is a loopback address'],
        ['http://2130706433/mcp', '127.0.0.1 is a loopback address'],
        ['http://[::1]/mcp', '::1 is a loopback address'],
        ['http://[::ffff:127.0.0.1]/mcp', '::ffff:7f00:1 is a loopback address'],
        ['http://169.254.169.254/latest/meta-data', '169.254.169.254 is a link-local address'],
        ['http://[fe80::1]/mcp', 'fe80::1 is a link-local address'],
        ['http://10.0.0.8/mcp', '10.0.0.8 is a private address'],
        ['http://172.16.5.4/mcp', '172.16.5.4 is a private address'],
        ['http://192.168.1.10/mcp', '192.168.1.10 is a private address'],
        ['http://[fd12:3456::1]/mcp', 'fd12:3456::1 is a private address'],
        ['https://100.64.0.1/mcp', '100.64.0.1 is a shared (carrier-grade NAT) address'],
        ['http://0.0.0.0/mcp', '0.0.0.0 is an unspecified address'],
      ];
      const before = requestsSeen();
      for (const [url, problem] of refused) {
        expect([url, await refusal(publicOnly().add({ name: 'inside', url, allow: 'echo' }))]).toEqual([
          url,
          `address_not_allowed: ${problem}: tool servers must be on public addresses unless TOOLSERVER_ALLOW_PRIVATE_ADDRESSES=true`,
        ]);
      }
      expect(requestsSeen()).toBe(before);
      expect(await admin.list()).toEqual([]);
    });

    it('refuses at registration a name that resolves to loopback (localhost), at the connection, sending nothing', async () => {
      const url = open.url.replace('127.0.0.1', 'localhost');
      const before = requestsSeen();
      expect(await refusal(publicOnly().add({ name: 'inside', url, allow: 'echo' }))).toMatch(
        /^address_not_allowed: http:\/\/localhost:\d+\/mcp: localhost resolves to (127\.0\.0\.1|::1), a loopback address: tool servers must be on public addresses unless TOOLSERVER_ALLOW_PRIVATE_ADDRESSES=true$/,
      );
      expect(requestsSeen()).toBe(before);
      // With the flag, the same URL is approved.
      expect(await admin.add({ name: 'inside', url, allow: 'echo' })).toMatchObject({ agentTools: ['inside__echo'] });
    });

    it('checks the address at every connection: a registered server that now resolves to loopback fails its calls', async () => {
      const port = new URL(open.url).port;
      // As if tools.example.com had been public when approved and now answers 127.0.0.1 (DNS rebinding).
      const rebound = (network: { allowPrivateAddresses: boolean }) =>
        new ToolServerNetwork({
          ...network,
          lookup: (hostname, options, callback) =>
            hostname === 'tools.example.com'
              ? options.all
                ? callback(null, [{ address: '127.0.0.1', family: 4 }])
                : callback(null, '127.0.0.1', 4)
              : callback(new Error(`no such name ${hostname}`), '', 0),
        });
      await register('rebound', `http://tools.example.com:${port}/mcp`, ['echo']);
      await register('literal', open.url, ['echo']);
      const refusing = rebound({ allowPrivateAddresses: false });
      const allowing = rebound({ allowPrivateAddresses: true });
      try {
        const before = requestsSeen();
        expect(await call('rebound__echo', { text: 'x' }, { network: refusing })).toMatchObject({
          status: 'failed',
          error:
            'The rebound tool server could not run echo: tools.example.com resolves to 127.0.0.1, a loopback address: tool servers must be on public addresses unless TOOLSERVER_ALLOW_PRIVATE_ADDRESSES=true.',
        });
        expect(await call('literal__echo', { text: 'x' }, { network: refusing })).toMatchObject({
          status: 'failed',
          error: expect.stringContaining('could not run echo: 127.0.0.1 is a loopback address: tool servers must'),
        });
        const read = new ToolServerUiSource(repository, secrets, UI_MAX_BYTES, refusing).read({
          serverName: 'rebound',
          uri: WEATHER_UI_URI,
        });
        await expect(read).rejects.toThrow(ExternalUiRefusedError);
        expect(requestsSeen()).toBe(before);

        expect(await call('rebound__echo', { text: 'x' }, { network: allowing })).toMatchObject({
          status: 'completed',
          content: 'echo: x',
        });
      } finally {
        await refusing.close();
        await allowing.close();
      }
    });
  });

  describe('the external UI source', () => {
    it('reads the resource again from its server', async () => {
      await addWeather('show_weather');
      const source = new ToolServerUiSource(repository, secrets, UI_MAX_BYTES, privateAllowed);
      expect(await source.read({ serverName: 'weather', uri: WEATHER_UI_URI })).toEqual({
        html: WEATHER_HTML,
        mimeType: MCP_APP_MIME_TYPE,
      });
    });

    it('says unavailable within the server timeout when the server answers initialize and then hangs', async () => {
      const stalling = await startStallingServer();
      try {
        await register('stuck', stalling.url, ['echo'], 1_000);
        const read = new ToolServerUiSource(repository, secrets, UI_MAX_BYTES, privateAllowed).read({
          serverName: 'stuck',
          uri: WEATHER_UI_URI,
        });
        await expect(within(4_000, read)).rejects.toBeInstanceOf(ExternalUiUnavailableError);
      } finally {
        await stalling.close();
      }
    });

    it('says unavailable when the server is down, and refuses servers that are not approved', async () => {
      await addWeather('show_weather');
      const source = new ToolServerUiSource(repository, secrets, UI_MAX_BYTES, privateAllowed);
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

    it('refuses for good (retrieval: 404 not_found) a removed server or an invalid resource, and names HTML over its limit', async () => {
      await addWeather('show_weather');
      const source = new ToolServerUiSource(repository, secrets, 20, privateAllowed);
      await expect(source.read({ serverName: 'weather', uri: WEATHER_UI_URI })).rejects.toBeInstanceOf(
        ExternalUiTooLargeError,
      );
      server.ui = { html: WEATHER_HTML, mimeType: 'text/html' };
      await expect(source.read({ serverName: 'weather', uri: WEATHER_UI_URI })).rejects.toBeInstanceOf(
        ExternalUiGoneError,
      );
      await admin.remove('weather');
      await expect(source.read({ serverName: 'weather', uri: WEATHER_UI_URI })).rejects.toBeInstanceOf(
        ExternalUiGoneError,
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

  it('refuses a ui:// URI with a NUL character, and drops rendering hints whose strings are not storable', () => {
    expect(checkUiResource('ui://a/\u0000', [{ ...valid, uri: 'ui://a/\u0000' }])).toMatchObject({ ok: false });
    const hinted = (ui: Record<string, unknown>) =>
      checkUiResource('ui://a/b.html', [{ ...valid, _meta: { ui } }]) as { ok: true; meta?: unknown };
    expect(hinted({ prefersBorder: true, domain: 'a.example' }).meta).toEqual({
      prefersBorder: true,
      domain: 'a.example',
    });
    expect(hinted({ domain: 'a\u0000.example' })).toMatchObject({ ok: true, meta: undefined });
    expect(hinted({ csp: { connectDomains: ['\ud800'] } })).toMatchObject({ ok: true, meta: undefined });
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

describe('the address rule of tool servers', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['10.20.30.40', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['192.168.0.1', 'private'],
    ['::ffff:10.0.0.1', 'private'],
    ['fc00::1', 'private'],
    ['fdff:ffff::1', 'private'],
    ['100.64.0.1', 'shared (carrier-grade NAT)'],
    ['100.127.255.254', 'shared (carrier-grade NAT)'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf::1', 'link-local'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved'],
  ])('refuses %s (%s)', (address, kind) => {
    expect(addressKind(address)).toBe(kind);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '172.15.255.255',
    '100.128.0.1',
    '192.169.0.1',
    '11.0.0.1',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
  ])('takes the public address %s', (address) => {
    expect(addressKind(address)).toBeUndefined();
  });
});
