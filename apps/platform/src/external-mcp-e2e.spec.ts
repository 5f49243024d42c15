import { ToolServerNetwork, ToolServerSecrets, toolServerEntities, toolServersAdminServiceFor } from '@fed/agent';
import { EXTERNAL_UI_ALT_TEXT, MCP_APP_MIME_TYPE } from '@fed/contracts';
import { useTestDatabase } from '@fed/persistence/testing';
import { McpAppsServer, ScriptedUpstream, WEATHER_HTML, WEATHER_UI_URI } from '@fed/testing';
import { randomBytes } from 'node:crypto';
import { type ChatStack, bootChatStack } from './testing/boot-chat-stack';
import { runTurn } from './testing/chat-turn';
import { textAnswer, toolCall } from './testing/model-answers';

// An approved external MCP Apps server (a real one, on loopback) in whole agent turns: its tool joins the
// agent's tools, its UI resource streams as `origin: external` and is retrieved; its HTML never reaches the model.

interface Task {
  actionType: string;
  status: string;
  callId?: string;
  metadata?: Record<string, unknown>;
}

interface StreamChunk {
  choices: {
    delta: { content?: string; tasks?: Task[]; uiResource?: Record<string, unknown> };
    finishReason: string | null;
  }[];
}

describe('external MCP tool servers in agent turns', () => {
  const database = useTestDatabase({ entities: toolServerEntities });
  const secretKey = randomBytes(32);
  let upstream: ScriptedUpstream;
  let server: McpAppsServer;
  let stack: ChatStack;
  let token: string;

  beforeAll(async () => {
    upstream = await ScriptedUpstream.start();
    server = await McpAppsServer.start({ authHeader: 'Bearer weather-token' });
    const admin = toolServersAdminServiceFor(database.dataSource, new ToolServerSecrets(secretKey), {
      network: ToolServerNetwork.of(true),
    });
    await admin.add({
      name: 'weather',
      url: server.url,
      authHeader: 'Bearer weather-token',
      allow: 'show_weather',
      // Room for the 8 MiB answer's cut-off on a loaded CI machine (the whole stack shares this process's loop);
      // no test here waits for the timeout.
      timeoutSeconds: '10',
    });
    stack = await bootChatStack(database.url, upstream.url, {
      // The server is on loopback: allowed as for tool servers of one's own network.
      env: { TOOLSERVER_SECRET_KEY: secretKey.toString('base64'), TOOLSERVER_ALLOW_PRIVATE_ADDRESSES: 'true' },
    });
    token = await stack.userToken();
  });

  afterAll(async () => {
    await stack?.close();
    await server?.close();
    await upstream?.close();
  });

  beforeEach(() => {
    upstream.reset();
    server.mode = 'up';
    server.failResourceReads = false;
    server.flood = undefined;
  });

  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${stack.api}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers },
    });

  const turn = (text: string) =>
    runTurn<StreamChunk>(stack.api, token, { messages: [{ role: 'user', content: text }] });

  async function historyTasks(conversationId: string): Promise<Task[]> {
    const history = await api(`/v1/conversations/${conversationId}/messages?order=asc`);
    const { messages } = (await history.json()) as { messages: { sender: string; tasks: Task[] }[] };
    return messages.find((message) => message.sender === 'AI')?.tasks ?? [];
  }

  it("streams the server's UI resource as external, gives the model its text only, and retrieves the HTML", async () => {
    upstream.enqueue(
      toolCall('call_weather_1', 'weather__show_weather', { city: 'Lyon' }),
      textAnswer(['Enjoy Lyon.']),
    );
    const { conversationId, chunks } = await turn('Weather in Lyon?');

    // The model was offered the server's tool under the server's name.
    const [first, second] = await upstream.waitForRequests(2);
    const offered = (first?.json as { tools: { function: { name: string } }[] }).tools.map(
      (tool) => tool.function.name,
    );
    expect(offered).toContain('weather__show_weather');

    const uiChunk = chunks.find((chunk) => chunk.choices[0]?.delta.uiResource)?.choices[0]?.delta;
    expect(uiChunk?.content).toBe(EXTERNAL_UI_ALT_TEXT);
    expect(uiChunk?.uiResource).toEqual({
      type: 'html',
      origin: 'external',
      altText: EXTERNAL_UI_ALT_TEXT,
      tool_call_id: 'call_weather_1',
      uri: WEATHER_UI_URI,
      tool_name: 'show_weather',
      server_name: 'weather',
      mime_type: MCP_APP_MIME_TYPE,
      meta: { csp: { connectDomains: ['https://api.weather.example'] }, prefersBorder: true },
      capabilities: { visibility: ['model', 'app'], interaction_mode: 'closed' },
      size: Buffer.byteLength(WEATHER_HTML, 'utf8'),
    });
    expect(chunks.at(-1)?.choices[0]?.finishReason).toBe('stop');
    expect(server.authorizations.at(-1)).toBe('Bearer weather-token');

    // The model's next request has the tool's text, never the HTML.
    const messages = (second?.json as { messages: { role: string; content: unknown; tool_call_id?: string }[] })
      .messages;
    expect(messages.find((message) => message.role === 'tool')).toMatchObject({
      tool_call_id: 'call_weather_1',
      content: 'Sunny and 21 °C in Lyon.',
    });
    expect(JSON.stringify(second?.json)).not.toContain('Weather view (MCP App)');

    // History: the resource without HTML and size, display-only (no interaction_type).
    const result = (await historyTasks(conversationId)).find((task) => task.actionType === 'tool_result');
    expect(result?.status).toBe('completed');
    const stored = result?.metadata?.uiResource as Record<string, unknown>;
    expect(stored).toMatchObject({ origin: 'external', tool_call_id: 'call_weather_1', uri: WEATHER_UI_URI });
    expect(stored).not.toHaveProperty('size');
    expect(stored).not.toHaveProperty('html');
    expect(result?.metadata).not.toHaveProperty('interaction_type');

    const retrieved = await api(`/v1/conversations/${conversationId}/ui-resources/call_weather_1`);
    expect(retrieved.status).toBe(200);
    const body = (await retrieved.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ toolCallId: 'call_weather_1', type: 'html', origin: 'external', html: WEATHER_HTML });
    expect(body.mimeType).toBe(uiChunk?.uiResource?.mime_type);
    expect(Buffer.byteLength(body.html as string, 'utf8')).toBe(uiChunk?.uiResource?.size);
  });

  it('announces a UI the server could not read at tool time, and retrieval reads it from the server later', async () => {
    server.failResourceReads = true;
    upstream.enqueue(toolCall('call_weather_2', 'weather__show_weather', { city: 'Oslo' }), textAnswer(['Done.']));
    const { conversationId, chunks } = await turn('Weather in Oslo?');
    const ui = chunks.find((chunk) => chunk.choices[0]?.delta.uiResource)?.choices[0]?.delta.uiResource;
    expect(ui).toMatchObject({ origin: 'external', tool_call_id: 'call_weather_2' });
    expect(ui).not.toHaveProperty('size');

    server.mode = 'unavailable';
    const unavailable = await api(`/v1/conversations/${conversationId}/ui-resources/call_weather_2`);
    expect([unavailable.status, ((await unavailable.json()) as { error: { code: string } }).error.code]).toEqual([
      502,
      'upstream_api_error',
    ]);

    server.mode = 'up';
    server.failResourceReads = false;
    const retrieved = await api(`/v1/conversations/${conversationId}/ui-resources/call_weather_2`);
    expect(retrieved.status).toBe(200);
    expect(await retrieved.json()).toMatchObject({ html: WEATHER_HTML, mimeType: MCP_APP_MIME_TYPE });
  });

  it('answers 404 not_found (no retry), not 500, when the server now answers with a resource that is not valid', async () => {
    server.failResourceReads = true;
    upstream.enqueue(toolCall('call_weather_4', 'weather__show_weather', { city: 'Bern' }), textAnswer(['Done.']));
    const { conversationId } = await turn('Weather in Bern?');
    server.failResourceReads = false;
    server.ui = { html: WEATHER_HTML, mimeType: 'text/plain' };
    try {
      const retrieved = await api(`/v1/conversations/${conversationId}/ui-resources/call_weather_4`);
      expect([retrieved.status, ((await retrieved.json()) as { error: { code: string } }).error.code]).toEqual([
        404,
        'not_found',
      ]);
    } finally {
      server.ui = { html: WEATHER_HTML, mimeType: MCP_APP_MIME_TYPE };
    }
  });

  it('fails the task when the server is down, and the turn still ends with stop', async () => {
    server.mode = 'unavailable';
    upstream.enqueue(toolCall('call_weather_3', 'weather__show_weather', { city: 'Rome' }), textAnswer(['Sorry.']));
    const { conversationId, chunks } = await turn('Weather in Rome?');
    const tasks = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tasks ?? []);
    expect(tasks.map((task) => [task.actionType, task.status])).toEqual([
      ['tool_start', 'in_progress'],
      ['tool_result', 'failed'],
    ]);
    expect(chunks.some((chunk) => chunk.choices[0]?.delta.uiResource)).toBe(false);
    expect(chunks.at(-1)?.choices[0]?.finishReason).toBe('stop');
    const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    expect(text).toContain('Sorry.');
    // The model was told the tool failed.
    const [, second] = await upstream.waitForRequests(2);
    const toolMessage = (second?.json as { messages: { role: string; content: string }[] }).messages.find(
      (message) => message.role === 'tool',
    );
    expect(toolMessage?.content).toContain('HTTP 503');
    expect((await historyTasks(conversationId)).map((task) => task.status)).toEqual(['in_progress', 'failed']);
  });

  it('fails the task when the server answers more than 8 MiB, stops reading it, and tells the model why', async () => {
    server.flood = { method: 'tools/call', form: 'sse' };
    upstream.enqueue(toolCall('call_weather_5', 'weather__show_weather', { city: 'Kyiv' }), textAnswer(['Too much.']));
    const { conversationId, chunks } = await turn('Weather in Kyiv?');
    const tasks = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tasks ?? []);
    expect(tasks.map((task) => [task.actionType, task.status])).toEqual([
      ['tool_start', 'in_progress'],
      ['tool_result', 'failed'],
    ]);
    expect(chunks.at(-1)?.choices[0]?.finishReason).toBe('stop');
    const [, second] = await upstream.waitForRequests(2);
    const toolMessage = (second?.json as { messages: { role: string; content: string }[] }).messages.find(
      (message) => message.role === 'tool',
    );
    expect(toolMessage?.content).toContain(
      'The weather tool server could not run show_weather: its answer to tools/call is larger than 8 MiB.',
    );
    expect((await historyTasks(conversationId)).map((task) => task.status)).toEqual(['in_progress', 'failed']);
    // The server stopped writing soon after the bound (the connection closed), far from the 64 MiB it had.
    const flood = server.floods.at(-1);
    await flood?.ended;
    expect([flood?.cut, (flood?.bytes ?? Infinity) < 16 * 1024 * 1024]).toEqual([true, true]);
  });
});
