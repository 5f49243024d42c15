import { useTestDatabase } from '@fed/persistence/testing';
import { MetricsScrape, ScriptedUpstream } from '@fed/testing';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { AgentProtocolsModule } from './platform-features';
import { type ChatStack, bootChatStack } from './testing/boot-chat-stack';
import { connectMcp, mcpUrl } from './testing/mcp-client';
import { textAnswer } from './testing/model-answers';

// The MCP endpoint at the HTTP and JSON-RPC level (document 3: "MCP", the version table, "Errors"):
// raw requests, so that every status, header and code is seen as a client sees it.

const SUPPORTED = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'];
const ACCEPT = 'application/json, text/event-stream';
const BODY_LIMIT_MB = 3;

interface RpcAnswer {
  status: number;
  headers: Headers;
  /** The JSON-RPC message of the body (a JSON body, or the first `data:` of an event stream). */
  message?: { id?: unknown; result?: Record<string, unknown>; error?: { code: number; message: string } };
  text: string;
}

const initialize = (protocolVersion: string, id: number | string = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1.0.0' } },
});

describe('the MCP endpoint over HTTP (versions, JSON-RPC codes, statuses)', () => {
  const database = useTestDatabase();
  let upstream: ScriptedUpstream;
  let stack: ChatStack;
  let token: string;

  beforeAll(async () => {
    upstream = await ScriptedUpstream.start();
    stack = await bootChatStack(database.url, upstream.url, {
      features: [AgentProtocolsModule],
      env: { PROTOCOL_BODY_LIMIT_MB: String(BODY_LIMIT_MB) },
    });
    token = await stack.token('mcp:all');
  });
  afterAll(async () => {
    await stack?.close();
    await upstream?.close();
  });

  async function post(body: unknown, headers: Record<string, string> = {}): Promise<RpcAnswer> {
    const response = await fetch(mcpUrl(stack.api), {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: ACCEPT,
        ...headers,
      },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return answerOf(response);
  }

  it('answers initialize with the revision asked for, at every supported revision', async () => {
    for (const version of SUPPORTED) {
      const { status, message } = await post(initialize(version));
      expect(status).toBe(200);
      expect(message?.result?.protocolVersion).toBe(version);
      expect(message?.result?.capabilities).toMatchObject({ tools: expect.any(Object) });
    }
  });

  it('answers initialize with any other revision (2026-07-28 included) with 2025-11-25, without an error', async () => {
    for (const version of ['2026-07-28', '2023-01-01', 'latest', '']) {
      const { status, message } = await post(initialize(version));
      expect(status).toBe(200);
      expect(message?.error).toBeUndefined();
      expect(message?.result?.protocolVersion).toBe('2025-11-25');
    }
  });

  it('serves later requests at every supported MCP-Protocol-Version, and without the header', async () => {
    for (const version of [...SUPPORTED, undefined]) {
      const { status, message } = await post(
        { jsonrpc: '2.0', id: 2, method: 'tools/list' },
        version ? { 'mcp-protocol-version': version } : {},
      );
      expect(status).toBe(200);
      expect((message?.result?.tools as unknown[]).length).toBe(5);
    }
  });

  it('refuses a later request whose MCP-Protocol-Version is outside the list: 400, -32000', async () => {
    for (const version of ['2026-07-28', '1999-01-01', 'garbage']) {
      const { status, message } = await post(
        { jsonrpc: '2.0', id: 3, method: 'tools/list' },
        {
          'mcp-protocol-version': version,
        },
      );
      expect(status).toBe(400);
      expect(message?.error?.code).toBe(-32000);
    }
  });

  it('refuses a repeated MCP-Protocol-Version header (joined into one value): 400', async () => {
    const answer = await rawPost(
      stack,
      token,
      { jsonrpc: '2.0', id: 4, method: 'tools/list' },
      { 'mcp-protocol-version': ['2025-06-18', '2025-06-18'] },
    );
    expect(answer.status).toBe(400);
    expect(answer.message?.error?.code).toBe(-32000);
  });

  it('refuses 2026-07-28 on server/discover (400, -32000) but not on initialize', async () => {
    const discover = await post(
      { jsonrpc: '2.0', id: 5, method: 'server/discover' },
      {
        'mcp-protocol-version': '2026-07-28',
      },
    );
    expect(discover.status).toBe(400);
    expect(discover.message?.error?.code).toBe(-32000);
    const init = await post(initialize('2025-06-18'), { 'mcp-protocol-version': '2026-07-28' });
    expect(init.status).toBe(200);
    expect(init.message?.result?.protocolVersion).toBe('2025-06-18');
  });

  it('answers server/discover without the header with -32601', async () => {
    const { status, message } = await post({ jsonrpc: '2.0', id: 6, method: 'server/discover' });
    expect(status).toBe(200);
    expect(message).toMatchObject({ id: 6, error: { code: -32601 } });
  });

  it('accepts and ignores a per-request _meta with protocol version and client capabilities', async () => {
    const { status, message } = await post({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/list',
      params: {
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': { sampling: {}, elicitation: { form: {} } },
          protocolVersion: '2026-07-28',
          clientCapabilities: { roots: { listChanged: true } },
        },
      },
    });
    expect(status).toBe(200);
    expect((message?.result?.tools as unknown[]).length).toBe(5);
  });

  it('works with the SDK client at every supported revision once connected', async () => {
    const client = await connectMcp(stack.api, token);
    try {
      const transport = client.transport as unknown as { setProtocolVersion(version: string): void };
      for (const version of SUPPORTED) {
        transport.setProtocolVersion(version);
        expect((await client.listTools()).tools).toHaveLength(5);
      }
    } finally {
      await client.close();
    }
  });

  describe('JSON-RPC errors', () => {
    it('-32700 for a body that is not JSON', async () => {
      const { status, message } = await post('{"jsonrpc": "2.0", "id": 1, "method": ');
      expect(status).toBe(400);
      expect(message).toMatchObject({ id: null, error: { code: -32700 } });
    });

    it('-32600 for a message without "jsonrpc": "2.0", where the SDK would say -32700', async () => {
      for (const body of [
        { id: 1, method: 'tools/list' },
        { jsonrpc: '1.0', id: 1, method: 'tools/list' },
        { jsonrpc: '2.0', id: { not: 'an id' }, method: 'tools/list' },
        { jsonrpc: '2.0', id: 1 },
        42,
        'text',
        null,
      ]) {
        const { status, message } = await post(JSON.stringify(body));
        expect(status).toBe(400);
        expect(message).toMatchObject({ id: null, error: { code: -32600 } });
      }
    });

    it('-32600 for a batch (removed from the protocol in 2025-06-18)', async () => {
      const batch = await post([{ jsonrpc: '2.0', id: 1, method: 'ping' }]);
      expect(batch.status).toBe(400);
      expect(batch.message?.error?.code).toBe(-32600);
    });

    it('-32600 for JSON nested deeper than 64 levels (2 MB of "["), refused without parsing', async () => {
      const nested = await post('['.repeat(2 * 1024 * 1024));
      expect(nested.status).toBe(400);
      expect(nested.message).toMatchObject({ id: null, error: { code: -32600 } });
      expect(nested.message?.error?.message).toContain('deeper than 64');
    });

    it('-32600 for JSON holding more than 10,000 objects and arrays (30,000 "{}" in an array)', async () => {
      const crowded = await post(`[${Array.from({ length: 30_000 }, () => '{}').join(',')}]`);
      expect(crowded.status).toBe(400);
      expect(crowded.message).toMatchObject({ id: null, error: { code: -32600 } });
      expect(crowded.message?.error?.message).toContain('more than 10000 objects');
    });

    it('-32601 for an unknown method, -32602 for an unknown tool or malformed params', async () => {
      expect((await post({ jsonrpc: '2.0', id: 8, method: 'resources/list' })).message).toMatchObject({
        id: 8,
        error: { code: -32601 },
      });
      const unknownTool = await post({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'rm_rf' } });
      expect(unknownTool.status).toBe(200);
      expect(unknownTool.message).toMatchObject({ id: 9, error: { code: -32602 } });
      for (const [method, params] of [
        ['tools/call', { name: 42 }],
        ['tools/call', { name: 'execute_chat', arguments: 'not an object' }],
        ['initialize', { protocolVersion: '2025-11-25' }],
      ] as const) {
        const malformed = await post({ jsonrpc: '2.0', id: 10, method, params });
        expect(malformed.status).toBe(200);
        expect(malformed.message).toMatchObject({ id: 10, error: { code: -32602 } });
      }
    });

    it('answers a notification with 202 and no body', async () => {
      const { status, text } = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
      expect(status).toBe(202);
      expect(text).toBe('');
    });
  });

  describe('Accept (document 3 requires only Authorization and Content-Type)', () => {
    it('answers a request without Accept with one JSON document', async () => {
      const answer = await rawPost(
        stack,
        token,
        { jsonrpc: '2.0', id: 20, method: 'tools/list' },
        { accept: undefined },
      );
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
      expect((answer.message?.result?.tools as unknown[]).length).toBe(5);
    });

    it('answers Accept: application/json with one JSON document, a whole execute_chat turn included', async () => {
      upstream.enqueue(textAnswer(['Plain', ' JSON']));
      const answer = await post(
        { jsonrpc: '2.0', id: 21, method: 'tools/call', params: { name: 'execute_chat', arguments: { prompt: 'Hi' } } },
        { accept: 'application/json' },
      );
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
      expect(answer.message?.id).toBe(21);
      expect(answer.message?.result?.structuredContent).toMatchObject({ text: 'Plain JSON' });
    });

    it('answers an event stream to a client that accepts both', async () => {
      const answer = await post(initialize('2025-11-25'), { accept: ACCEPT });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(answer.message?.result?.protocolVersion).toBe('2025-11-25');
    });

    it('counts an execute_chat event stream on /metrics while it is open, and not once it has ended', async () => {
      const openStreams = async () =>
        (await MetricsScrape.of(stack.service.url)).sum('sse_streams_active', { kind: 'mcp' });
      upstream.enqueue(textAnswer(['Slow', ' stream'], 500));
      const response = await fetch(mcpUrl(stack.api), {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: ACCEPT },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 22,
          method: 'tools/call',
          params: { name: 'execute_chat', arguments: { prompt: 'Slowly' } },
        }),
      });
      expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(await openStreams()).toBe(1);
      expect(await response.text()).toContain('Slow stream');
      while ((await openStreams()) !== 0) await new Promise((resolve) => setTimeout(resolve, 50));
      // A notification is answered 202 without a stream: never counted.
      expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
      expect(await openStreams()).toBe(0);
    });
  });

  describe('HTTP statuses', () => {
    it('401 without a token or with a bad one, the challenge naming the resource metadata', async () => {
      for (const authorization of [undefined, 'Bearer not-a-token']) {
        const response = await fetch(mcpUrl(stack.api), {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: ACCEPT,
            ...(authorization ? { authorization } : {}),
          },
          body: JSON.stringify(initialize('2025-11-25')),
        });
        expect(response.status).toBe(401);
        const challenge = response.headers.get('www-authenticate') ?? '';
        expect(challenge).toMatch(/^Bearer /);
        expect(challenge).toContain(
          `resource_metadata="${stack.service.config.http.publicUrl}/.well-known/oauth-protected-resource/api/v1/mcp"`,
        );
      }
    });

    it('403 insufficient_scope for a token without mcp:all (a2a:all and chat scopes included)', async () => {
      for (const scope of ['a2a:all', 'chat:exec chat:history']) {
        const response = await fetch(mcpUrl(stack.api), {
          method: 'POST',
          headers: {
            authorization: `Bearer ${await stack.token(scope)}`,
            'content-type': 'application/json',
            accept: ACCEPT,
          },
          body: JSON.stringify(initialize('2025-11-25')),
        });
        expect(response.status).toBe(403);
        expect(response.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
        expect(response.headers.get('www-authenticate')).toContain('resource_metadata=');
        expect(((await response.json()) as { error: { code: string } }).error.code).toBe('insufficient_scope');
      }
    });

    it('413 for a body over PROTOCOL_BODY_LIMIT_MB, closing the connection', async () => {
      const prompt = 'x'.repeat(BODY_LIMIT_MB * 1024 * 1024 + 1);
      const { status, message } = await post({
        jsonrpc: '2.0',
        id: 11,
        method: 'tools/call',
        params: { name: 'execute_chat', arguments: { prompt } },
      });
      expect(status).toBe(413);
      expect(message?.error?.code).toBe(-32600);
    });

    it('answers nothing and logs no failure when the client goes away while sending the body', async () => {
      const logged = jest.spyOn(stack.service.logger, 'error');
      try {
        await abandonUpload(stack, token);
        const answer = await post({ jsonrpc: '2.0', id: 13, method: 'ping' });
        expect(answer.status).toBe(200);
        expect(logged).not.toHaveBeenCalled();
      } finally {
        logged.mockRestore();
      }
    });

    it("415 with -32600 (not the protocol version's -32000) for a body that is not declared JSON", async () => {
      const { status, message } = await post(initialize('2025-11-25'), { 'content-type': 'text/plain' });
      expect(status).toBe(415);
      expect(message).toMatchObject({ id: null, error: { code: -32600 } });
    });

    it('405 with Allow: POST for GET and DELETE (stateless: no stream, no session)', async () => {
      for (const method of ['GET', 'DELETE']) {
        const response = await fetch(mcpUrl(stack.api), {
          method,
          headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
        });
        expect(response.status).toBe(405);
        expect(response.headers.get('allow')).toBe('POST');
      }
    });

    it('issues no Mcp-Session-Id and ignores one a client sends', async () => {
      const init = await post(initialize('2025-11-25'));
      expect(init.headers.get('mcp-session-id')).toBeNull();
      const listed = await post(
        { jsonrpc: '2.0', id: 12, method: 'tools/list' },
        {
          'mcp-session-id': 'made-up-session',
          'mcp-protocol-version': '2025-11-25',
        },
      );
      expect(listed.status).toBe(200);
      expect((listed.message?.result?.tools as unknown[]).length).toBe(5);
      expect(listed.headers.get('mcp-session-id')).toBeNull();
    });

    it('403 for a browser request from a foreign Origin (DNS rebinding), 200 from its own', async () => {
      const foreign = await post(initialize('2025-11-25'), { origin: 'http://evil.example.com' });
      expect(foreign.status).toBe(403);
      const own = await post(initialize('2025-11-25'), {
        origin: new URL(stack.service.config.http.publicUrl).origin,
      });
      expect(own.status).toBe(200);
    });

    it('publishes the protected-resource metadata (RFC 9728) without a token', async () => {
      const base = stack.service.config.http.publicUrl;
      const response = await fetch(`${stack.service.url}/.well-known/oauth-protected-resource/api/v1/mcp`);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({
        resource: `${base}/api/v1/mcp`,
        authorization_servers: [stack.service.config.auth.issuer],
        scopes_supported: ['mcp:all'],
        bearer_methods_supported: ['header'],
      });
    });
  });
});

async function answerOf(response: Response): Promise<RpcAnswer> {
  const text = await response.text();
  const type = response.headers.get('content-type') ?? '';
  let data: string | undefined = text;
  if (type.startsWith('text/event-stream')) {
    data = text
      .split('\n')
      .find((line) => line.startsWith('data: '))
      ?.slice(6);
  }
  const message = data ? (JSON.parse(data) as RpcAnswer['message']) : undefined;
  return { status: response.status, headers: response.headers, message, text };
}

/**
 * Starts a POST whose body is declared 1 MB long, sends part of it and hangs up; resolves once the
 * service has seen the connection close (its socket ends).
 */
function abandonUpload(stack: ChatStack, token: string): Promise<void> {
  const url = new URL(mcpUrl(stack.api));
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => {
      socket.write(
        [
          `POST ${url.pathname} HTTP/1.1`,
          `Host: ${url.host}`,
          `Authorization: Bearer ${token}`,
          'Content-Type: application/json',
          `Content-Length: ${1024 * 1024}`,
          '',
          '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute_chat","arguments":{"prompt":"',
        ].join('\r\n'),
      );
      // Long enough for the service to be reading the body when the client leaves.
      setTimeout(() => socket.destroy(), 200);
    });
    socket.on('error', reject);
    socket.on('close', () => setTimeout(resolve, 300));
  });
}

/** A POST through node:http, which sends a header given as an array as several header lines. */
function rawPost(
  stack: ChatStack,
  token: string,
  body: unknown,
  headers: Record<string, string | string[] | undefined>,
): Promise<RpcAnswer> {
  const sent = { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: ACCEPT, ...headers };
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      mcpUrl(stack.api),
      {
        method: 'POST',
        // A header given as undefined is not sent at all.
        headers: Object.fromEntries(Object.entries(sent).filter(([, value]) => value !== undefined)) as Record<
          string,
          string | string[]
        >,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const fetchHeaders = new Headers();
          for (const [name, value] of Object.entries(response.headers)) {
            if (typeof value === 'string') fetchHeaders.set(name, value);
          }
          const text = Buffer.concat(chunks).toString('utf8');
          void answerOf(new Response(text, { status: response.statusCode, headers: fetchHeaders })).then(resolve);
        });
      },
    );
    request.on('error', reject);
    request.end(JSON.stringify(body));
  });
}
