import 'reflect-metadata';
import { type HostedApp, testServiceUrls } from '@fed/config';
import { apiKeysServiceFor, gatewayEntities } from '@fed/gateway';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import {
  OtlpReceiver,
  type ProcessHandle,
  type ReceivedSpan,
  ScriptedUpstream,
  buildDist,
  cleanEnv,
  deleteRedisKeys,
  freePort,
  repoRoot,
  signIn,
  startProcess,
} from '@fed/testing';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SCRIPTED_AGENT_MODEL, writeScriptedRouting } from './testing/scripted-model';
import { textAnswer, toolCall } from './testing/model-answers';

const REDIRECT_URI = 'https://app.example.com/callback';
const PASSWORD = 'correct horse battery staple';
const CLIENT_SECRET = randomBytes(24).toString('base64url');
const SERVER = 2;
const CLIENT = 3;
// Spans are exported in batches every 100 ms here: they arrive well within this.
const SPANS_TIMEOUT_MS = 15_000;

type Service = 'auth-service' | 'chat-service' | 'agent-runtime' | 'llm-gateway' | 'agent-protocols';

/**
 * Issue 21, tracing: the distributed services as `npm start` builds them, each its own process exporting
 * OTLP/HTTP JSON to a collector in this test. One chat turn is one trace from chat-service through the
 * queue, agent-runtime and llm-gateway to the provider; a reconnecting reader and an A2A call join it.
 */
describe('one chat turn is one trace across the services', () => {
  const redis = { url: testServiceUrls().redisUrl, keyPrefix: `test:${randomUUID().slice(0, 8)}:` };
  let database: TestDatabase;
  let receiver: OtlpReceiver;
  let upstream: ScriptedUpstream;
  let workDir: string;
  const processes = new Map<Service, { handle: ProcessHandle; url: string }>();
  let chatToken: string;

  const urlOf = (service: Service) => processes.get(service)?.url as string;

  async function start(service: Service, env: Record<string, string>): Promise<void> {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const handle = startProcess(
      `dist/apps/${service}/src/main.js`,
      [],
      cleanEnv({
        DATABASE_URL: database.url,
        REDIS_URL: redis.url,
        REDIS_KEY_PREFIX: redis.keyPrefix,
        HOST: '127.0.0.1',
        PORT: String(port),
        PUBLIC_URL: url,
        LOG_LEVEL: 'info',
        BLOB_DIR: path.join(workDir, 'blobs'),
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '100',
        ...env,
      }),
    );
    processes.set(service, { handle, url });
    await handle.waitForOutput(new RegExp(`${service} listening`), 60_000);
  }

  beforeAll(async () => {
    buildDist();
    [database, receiver, upstream] = await Promise.all([
      createTestDatabase({ entities: gatewayEntities }),
      OtlpReceiver.start(),
      ScriptedUpstream.start(),
    ]);
    workDir = await mkdtemp(path.join(tmpdir(), 'fed-tracing-'));
    const realmFile = path.join(workDir, 'realm.json');
    await writeFile(
      realmFile,
      JSON.stringify({
        realm: 'federation',
        clients: [
          {
            clientId: 'web',
            name: 'web',
            secret: CLIENT_SECRET,
            grantTypes: ['authorization_code'],
            redirectUris: [REDIRECT_URI],
            scopes: ['chat:exec', 'chat:history', 'a2a:all'],
            consentRequired: false,
          },
        ],
        users: [{ email: 'tracer@example.com', username: 'tracer', displayName: 'Tracer', password: PASSWORD }],
      }),
    );
    const routingFile = writeScriptedRouting(workDir, upstream.url);
    const { apiKey } = await apiKeysServiceFor(database.dataSource, {
      keyPrefix: 'fed_',
    }).create({ name: 'agent' });

    await start('auth-service', { KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'), REALM_IMPORT: realmFile });
    const authUrl = urlOf('auth-service');
    await Promise.all([
      start('llm-gateway', { AUTH_URL: authUrl, LLM_GATEWAY_ROUTING_FILE: routingFile }),
      start('chat-service', { AUTH_URL: authUrl }),
      // Keeps no trace that starts here: what it records, it records because a service caller's trace is sampled.
      start('agent-protocols', {
        AUTH_URL: authUrl,
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0',
      }),
    ]);
    await start('agent-runtime', {
      AUTH_URL: authUrl,
      AGENT_GATEWAY_URL: `${urlOf('llm-gateway')}/llm/v1`,
      AGENT_GATEWAY_API_KEY: apiKey,
      AGENT_MODEL: SCRIPTED_AGENT_MODEL,
      AGENT_COALESCE_MS: '0',
    });
    const tokens = await signIn({
      serviceUrl: authUrl,
      issuer: `${authUrl}/realms/federation`,
      clientId: 'web',
      clientSecret: CLIENT_SECRET,
      redirectUri: REDIRECT_URI,
      login: 'tracer',
      password: PASSWORD,
      scope: 'openid chat:exec chat:history a2a:all',
    });
    chatToken = tokens.access_token;
  }, 180_000);

  afterAll(async () => {
    // SIGTERM: each service drains, exports its last spans and exits 0.
    for (const { handle } of processes.values()) handle.child.kill('SIGTERM');
    for (const { handle } of processes.values()) {
      if ((await handle.exited(20_000)) === null) handle.child.kill('SIGKILL');
    }
    await upstream?.close();
    await receiver?.close();
    await database?.drop();
    await deleteRedisKeys(redis.url, redis.keyPrefix);
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  const inTrace = (spans: readonly ReceivedSpan[], traceId: string) => spans.filter((s) => s.traceId === traceId);
  const byId = (spans: readonly ReceivedSpan[], spanId: string | undefined) => spans.find((s) => s.spanId === spanId);

  /** Reads an SSE response until `pattern` is in what was read (or the stream ends). */
  async function readUntil(
    response: Response,
    pattern: RegExp,
  ): Promise<{ text: string; rest: () => Promise<string> }> {
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!pattern.test(text)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    const rest = async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return text;
        text += decoder.decode(value, { stream: true });
      }
    };
    return { text, rest };
  }

  it('chat-service, the queue, agent-runtime, llm-gateway and the provider call share one trace id; a reconnect joins it', async () => {
    upstream.enqueue(toolCall('call_map', 'show_map', { title: 'Coffee', places: [{ id: 'p1', name: 'Alma' }] }));
    // The answer pauses after its first line, so that a second reader can join while the turn runs.
    upstream.enqueue(textAnswer(['Here is the map.\n', 'Enjoy your coffee.'], 1500));
    // A public client's own trace context: not continued (linked), its baggage passed on to no one.
    const clientTrace = randomBytes(16).toString('hex');
    const clientSpan = randomBytes(8).toString('hex');
    const response = await fetch(`${urlOf('chat-service')}/api/v1/chat/completions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${chatToken}`,
        'content-type': 'application/json',
        traceparent: `00-${clientTrace}-${clientSpan}-01`,
        baggage: 'user.email=tracer%40example.com',
      },
      body: JSON.stringify({
        model: 'federation-agent',
        stream: true,
        agentMode: true,
        messages: [{ role: 'user', content: 'Show me coffee places' }],
      }),
    });
    expect(response.status).toBe(200);
    const conversationId = response.headers.get('x-conversation-id') as string;
    const first = await readUntil(response, /Here is the map/);
    // The last entry read: the reconnect resumes after it, mid-stream (it does not read the stream's first entry).
    const lastOffset = [...first.text.matchAll(/^id: (\S+)$/gm)].at(-1)?.[1] as string;
    expect(lastOffset).toBeDefined();

    // A client that lost the stream reconnects while the turn is still running.
    const reconnect = await fetch(`${urlOf('chat-service')}/api/v1/chat/completions/${conversationId}`, {
      headers: { authorization: `Bearer ${chatToken}`, 'last-event-id': lastOffset },
    });
    expect(reconnect.status).toBe(200);
    const [whole, resumed] = await Promise.all([first.rest(), reconnect.text()]);
    expect(whole).toContain('data: [DONE]');
    // The text as the deltas carry it: a piece of plain output may come as more than one chunk (word by word).
    const contentOf = (sse: string) =>
      [...sse.matchAll(/^data: (\{.*\})$/gm)]
        .map((match) => (JSON.parse(match[1] as string) as { choices: { delta: { content?: string } }[] }).choices[0])
        .map((choice) => choice?.delta.content ?? '')
        .join('');
    expect(contentOf(resumed)).toContain('Enjoy your coffee.');
    expect(contentOf(resumed)).not.toContain('Here is the map');
    expect(resumed).toContain('data: [DONE]');
    // The stream's wire format is unchanged: an entry is `id:` and `data:`, nothing of the trace.
    expect(whole).not.toMatch(/traceparent|"trace"/);

    const post = (spans: readonly ReceivedSpan[]) =>
      spans.find(
        (s) =>
          s.service === 'chat-service' &&
          s.kind === SERVER &&
          s.attributes['http.request.method'] === 'POST' &&
          s.attributes['url.path'] === '/api/v1/chat/completions',
      );
    const spans = await receiver.waitFor((all) => {
      const root = post(all);
      if (!root) return false;
      const trace = inTrace(all, root.traceId);
      return (
        // Both model calls' gateway spans: they are exported in batches, the second may come later than the first.
        trace.filter((s) => s.service === 'llm-gateway' && s.kind === SERVER).length === 2 &&
        trace.some((s) => s.service === 'llm-gateway' && s.kind === CLIENT) &&
        trace.filter((s) => s.service === 'agent-runtime' && s.name === 'chat agent-model').length === 2 &&
        trace.some((s) => s.service === 'agent-runtime' && s.name === 'agent.turn') &&
        trace.some((s) => s.service === 'chat-service' && s.name === 'chat.stream.relay')
      );
    }, SPANS_TIMEOUT_MS);
    const root = post(spans) as ReceivedSpan;
    const trace = inTrace(spans, root.traceId);
    expect(root.parentSpanId).toBeUndefined();
    expect(root.traceId).not.toBe(clientTrace);
    expect(root.links).toEqual([{ traceId: clientTrace, spanId: clientSpan }]);
    expect(inTrace(spans, clientTrace)).toEqual([]);

    // agent-runtime: the turn continues the request's trace (the job carried it), a span per model and tool call.
    const turn = trace.find((s) => s.name === 'agent.turn') as ReceivedSpan;
    expect(turn).toMatchObject({
      service: 'agent-runtime',
      attributes: { 'fed.conversation_id': conversationId, 'fed.run_id': expect.any(String) },
    });
    expect(byId(trace, turn.parentSpanId)?.service).toBe('chat-service');
    const modelCalls = trace.filter((s) => s.name === 'chat agent-model');
    for (const call of modelCalls) {
      expect(call.parentSpanId).toBe(turn.spanId);
      expect(call.attributes).toMatchObject({
        'gen_ai.request.model': SCRIPTED_AGENT_MODEL,
        'fed.run_id': turn.attributes['fed.run_id'],
      });
    }
    const tool = trace.find((s) => s.name === 'execute_tool show_map') as ReceivedSpan;
    expect(tool).toMatchObject({ parentSpanId: turn.spanId, attributes: { 'gen_ai.tool.name': 'show_map' } });

    // llm-gateway: its server spans continue the runtime's HTTP calls; its call to the provider is their child.
    const gatewayServers = trace.filter((s) => s.service === 'llm-gateway' && s.kind === SERVER);
    expect(gatewayServers).toHaveLength(2);
    for (const server of gatewayServers) {
      const caller = byId(trace, server.parentSpanId) as ReceivedSpan;
      expect(caller).toMatchObject({ service: 'agent-runtime', kind: CLIENT });
      expect(modelCalls.map((call) => call.spanId)).toContain(caller.parentSpanId);
      expect(server.name).toBe('POST /llm/v1/chat/completions');
      const upstreamCall = trace.find(
        (s) => s.parentSpanId === server.spanId && s.kind === CLIENT && s.attributes['url.full'] !== undefined,
      );
      expect(upstreamCall?.attributes['url.full']).toBe(`${upstream.url}/v1/chat/completions`);
    }
    // The provider itself was called with the trace's context, and nothing of the client's baggage.
    for (const request of upstream.requests) {
      expect(request.headers.traceparent).toMatch(new RegExp(`^00-${root.traceId}-[0-9a-f]{16}-01$`));
      expect(request.headers).not.toHaveProperty('baggage');
    }

    // Database and Redis calls of the turn are spans of it: the instrumentations patched pg and ioredis in time.
    for (const service of ['chat-service', 'agent-runtime'] as const) {
      expect(trace.some((s) => s.service === service && s.attributes['db.system.name'] === 'postgresql')).toBe(true);
      expect(trace.some((s) => s.service === service && s.attributes['db.system.name'] === 'redis')).toBe(true);
    }
    // Redis statements are command names only: never the chunks (message contents) they carry.
    const redisStatements = trace.flatMap((s) =>
      s.attributes['db.system.name'] === 'redis' ? [s.attributes['db.query.text']] : [],
    );
    expect(JSON.stringify(redisStatements)).not.toMatch(/coffee|Here is|show_map/i);

    // The reconnect: its own request starts a trace; its relay continues the turn's trace, linked to that request.
    const relay = trace.find((s) => s.name === 'chat.stream.relay') as ReceivedSpan;
    const reconnectServer = spans.find(
      (s) =>
        s.service === 'chat-service' &&
        s.kind === SERVER &&
        s.attributes['url.path'] === `/api/v1/chat/completions/${conversationId}`,
    );
    expect(reconnectServer?.traceId).not.toBe(root.traceId);
    expect(relay.links).toContainEqual({ traceId: reconnectServer?.traceId, spanId: expect.any(String) });

    // A log line of the turn carries its trace id.
    const logged = [...processes.values()].flatMap(({ handle }) =>
      handle
        .output()
        .split('\n')
        .filter((line) => line.includes(`"traceId":"${root.traceId}"`)),
    );
    expect(logged.length).toBeGreaterThan(0);
    expect(JSON.parse(logged[0] as string)).toMatchObject({
      traceId: root.traceId,
      spanId: expect.stringMatching(/^[0-9a-f]{16}$/),
    });
  }, 60_000);

  it('an A2A call continues its caller’s trace (and sampling decision) into the runtime; a public route does not, and probes start no trace', async () => {
    // agent-protocols keeps no trace of its own (ratio 0): a client's sampled flag on a public route changes nothing.
    const cardTrace = randomBytes(16).toString('hex');
    const card = await fetch(`${urlOf('agent-protocols')}/.well-known/agent-card.json`, {
      headers: { traceparent: `00-${cardTrace}-${randomBytes(8).toString('hex')}-01` },
    });
    expect(card.status).toBe(200);
    await card.text();

    const callerTrace = randomBytes(16).toString('hex');
    const answer = await fetch(`${urlOf('agent-protocols')}/api/v1/a2a`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${chatToken}`,
        'content-type': 'application/json',
        'a2a-version': '0.3',
        traceparent: `00-${callerTrace}-${randomBytes(8).toString('hex')}-01`,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'message/send',
        params: {
          message: {
            kind: 'message',
            messageId: randomUUID(),
            role: 'user',
            parts: [{ kind: 'text', text: 'Hello over A2A' }],
            metadata: { reportMode: 'without' },
          },
        },
      }),
    });
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { result?: { status?: { state: string } } }).result?.status?.state).toBe(
      'completed',
    );
    for (const service of ['chat-service', 'llm-gateway'] as const) {
      expect((await fetch(`${urlOf(service)}/healthz`)).status).toBe(200);
    }

    // The caller's span is the root of it all: agent-protocols continues it, the runtime's turn and the gateway follow.
    const spans = await receiver.waitFor((all) => {
      const trace = inTrace(all, callerTrace);
      return (
        trace.some((s) => s.service === 'agent-protocols' && s.kind === SERVER) &&
        trace.some((s) => s.service === 'agent-runtime' && s.name === 'agent.turn') &&
        trace.some((s) => s.service === 'llm-gateway' && s.kind === SERVER)
      );
    }, SPANS_TIMEOUT_MS);
    const trace = inTrace(spans, callerTrace);
    const turn = trace.find((s) => s.name === 'agent.turn') as ReceivedSpan;
    expect(byId(trace, turn.parentSpanId)?.service).toBe('agent-protocols');
    // The runtime's call to the gateway stays in the caller's trace (a service route continues it).
    const gateway = trace.find((s) => s.service === 'llm-gateway' && s.kind === SERVER) as ReceivedSpan;
    expect(byId(trace, gateway.parentSpanId)).toMatchObject({ service: 'agent-runtime', kind: CLIENT });
    expect(spans.filter((s) => String(s.attributes['url.path']).startsWith('/healthz'))).toEqual([]);
    // Spans are exported in the order they end: the agent card's request, served before, would be here.
    expect(spans.filter((s) => s.attributes['url.path'] === '/.well-known/agent-card.json')).toEqual([]);
    expect(spans.filter((s) => s.traceId === cardTrace || s.links.some((link) => link.traceId === cardTrace))).toEqual(
      [],
    );
  }, 60_000);

  it('every app starts tracing before it loads anything else (its main.ts imports preload.ts first)', async () => {
    const apps: HostedApp[] = [
      'auth-service',
      'chat-service',
      'agent-runtime',
      'admin-service',
      'agent-protocols',
      'llm-gateway',
      'platform',
    ];
    for (const app of apps) {
      const built = await readFile(path.join(repoRoot, `dist/apps/${app}/src/main.js`), 'utf8');
      expect(/require\("[^"]+"\)/.exec(built)?.[0]).toBe('require("./preload")');
      expect(await readFile(path.join(repoRoot, `dist/apps/${app}/src/preload.js`), 'utf8')).toContain(
        `startTracing)('${app}')`,
      );
    }
  });
});
