import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ModelRequest } from './chat-wire';
import { GatewayCredentials } from './gateway-credentials';
import { ModelClient } from './model-client';
import { ModelError } from './model-error';

interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

/** A stand-in for the model gateway and the token endpoint, answering with whatever the test sets. */
class FakeGateway {
  readonly received: Received[] = [];
  chat: Handler = (_req, res) => sse(res, [textChunk('ok'), finish('stop'), '[DONE]']);
  token: Handler = (_req, res) => json(res, 200, { access_token: 'token-1', expires_in: 3600 });
  private readonly server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      this.received.push({ path: req.url ?? '', headers: req.headers, body });
      if (req.url === '/federation/auth/v1/token') this.token(req, res, body);
      else this.chat(req, res, body);
    });
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  chatRequests(): Received[] {
    return this.received.filter((request) => request.path.endsWith('/chat/completions'));
  }
}

function sse(res: ServerResponse, events: unknown[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const event of events) res.write(`data: ${typeof event === 'string' ? event : JSON.stringify(event)}\n\n`);
  res.end();
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

const textChunk = (content: string) => ({ choices: [{ index: 0, delta: { content }, finish_reason: null }] });
const finish = (reason: string) => ({ choices: [{ index: 0, delta: {}, finish_reason: reason }] });
const toolPiece = (index: number, piece: Record<string, unknown>) => ({
  choices: [{ index: 0, delta: { tool_calls: [{ index, ...piece }] }, finish_reason: null }],
});

const request = (overrides: Partial<ModelRequest> = {}): ModelRequest => ({
  model: 'agent-default',
  messages: [{ role: 'user', content: 'hi' }],
  privateMode: false,
  ...overrides,
});

describe('model client (the agent to the model gateway)', () => {
  let gateway: FakeGateway;
  let origin: string;
  const clients: ModelClient[] = [];

  const clientWith = (credentials: ConstructorParameters<typeof GatewayCredentials>[0]) => {
    const client = new ModelClient(
      { gatewayUrl: `${origin}/llm/v1/`, timeoutMs: 5000, connections: 4 },
      new GatewayCredentials(credentials),
    );
    clients.push(client);
    return client;
  };
  const keyClient = () => clientWith({ apiKey: 'fed_key', tokenUrl: `${origin}/federation/auth/v1/token` });
  const noText = () => undefined;

  beforeEach(async () => {
    gateway = new FakeGateway();
    origin = await gateway.start();
  });

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await gateway.close();
  });

  it('posts a streaming chat completion to {gatewayUrl}/chat/completions with the gateway key', async () => {
    const tools = [{ type: 'function' as const, function: { name: 't', description: 'd', parameters: {} } }];
    await keyClient().stream(request({ tools, toolChoice: 'none' }), noText, new AbortController().signal);
    const [sent] = gateway.chatRequests();
    expect(sent.path).toBe('/llm/v1/chat/completions');
    expect(sent.headers.authorization).toBe('Bearer fed_key');
    expect(sent.headers['x-federation-private']).toBeUndefined();
    expect(JSON.parse(sent.body)).toEqual({
      model: 'agent-default',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      tools,
      tool_choice: 'none',
    });
  });

  it('marks a private turn with x-federation-private: true', async () => {
    await keyClient().stream(request({ privateMode: true }), noText, new AbortController().signal);
    expect(gateway.chatRequests()[0].headers['x-federation-private']).toBe('true');
  });

  it('hands text pieces over in order and assembles tool calls from their deltas by index', async () => {
    gateway.chat = (_req, res) =>
      sse(res, [
        textChunk('Let me '),
        textChunk('look.'),
        toolPiece(0, { id: 'call_a', type: 'function', function: { name: 'search_memory', arguments: '{"que' } }),
        toolPiece(1, { id: 'call_b', type: 'function', function: { name: 'ask_user', arguments: '{}' } }),
        toolPiece(0, { function: { arguments: 'ry":"x"}' } }),
        finish('tool_calls'),
        '[DONE]',
      ]);
    const pieces: string[] = [];
    const reply = await keyClient().stream(request(), (piece) => pieces.push(piece), new AbortController().signal);
    expect(pieces).toEqual(['Let me ', 'look.']);
    expect(reply).toEqual({
      text: 'Let me look.',
      finishReason: 'tool_calls',
      toolCalls: [
        { id: 'call_a', type: 'function', function: { name: 'search_memory', arguments: '{"query":"x"}' } },
        { id: 'call_b', type: 'function', function: { name: 'ask_user', arguments: '{}' } },
      ],
    });
  });

  it.each([
    [400, 'agent_failed'],
    [401, 'model_unavailable'],
    [404, 'model_unavailable'],
    [429, 'model_unavailable'],
    [502, 'model_unavailable'],
  ])('turns a gateway answer %i into %s with its message', async (status, code) => {
    gateway.chat = (_req, res) => json(res, status, { error: { message: `refused with ${status}`, type: 'x' } });
    const failure = keyClient().stream(request(), noText, new AbortController().signal);
    await expect(failure).rejects.toBeInstanceOf(ModelError);
    await expect(failure).rejects.toMatchObject({ code, message: expect.stringContaining(`refused with ${status}`) });
  });

  it('turns an error event inside the stream into model_unavailable', async () => {
    gateway.chat = (_req, res) => sse(res, [textChunk('Half'), { error: { message: 'provider broke' } }]);
    await expect(keyClient().stream(request(), noText, new AbortController().signal)).rejects.toMatchObject({
      code: 'model_unavailable',
      message: expect.stringContaining('provider broke'),
    });
  });

  it('refuses a stream that ends before it is complete', async () => {
    gateway.chat = (_req, res) => sse(res, [textChunk('Half')]);
    await expect(keyClient().stream(request(), noText, new AbortController().signal)).rejects.toMatchObject({
      code: 'model_unavailable',
    });
  });

  it('turns an unreachable gateway into model_unavailable', async () => {
    await gateway.close();
    await expect(keyClient().stream(request(), noText, new AbortController().signal)).rejects.toMatchObject({
      code: 'model_unavailable',
    });
    gateway = new FakeGateway();
    origin = await gateway.start();
  });

  it('ends at once when its signal aborts, with the abort rather than a model error', async () => {
    gateway.chat = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify(textChunk('Start'))}\n\n`);
    };
    const controller = new AbortController();
    const started = Date.now();
    const call = keyClient().stream(request(), () => controller.abort(new Error('cancelled')), controller.signal);
    await expect(call).rejects.not.toBeInstanceOf(ModelError);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  describe('with a client-credentials token instead of a key', () => {
    const tokenClient = () =>
      clientWith({
        clientId: 'agent runtime',
        clientSecret: 's3cret:x',
        tokenUrl: `${origin}/federation/auth/v1/token`,
      });

    it('fetches a token with client_secret_basic and keeps it until shortly before it expires', async () => {
      const client = tokenClient();
      for (let i = 0; i < 3; i++) await client.stream(request(), noText, new AbortController().signal);
      const tokenRequests = gateway.received.filter((r) => r.path === '/federation/auth/v1/token');
      expect(tokenRequests).toHaveLength(1);
      expect(tokenRequests[0].body).toBe('grant_type=client_credentials');
      const basic = Buffer.from(`${encodeURIComponent('agent runtime')}:${encodeURIComponent('s3cret:x')}`).toString(
        'base64',
      );
      expect(tokenRequests[0].headers.authorization).toBe(`Basic ${basic}`);
      expect(gateway.chatRequests().map((r) => r.headers.authorization)).toEqual(Array(3).fill('Bearer token-1'));
    });

    it('fetches a new token when less than 30 seconds of the old one are left', async () => {
      gateway.token = (_req, res) => json(res, 200, { access_token: 'short', expires_in: 30 });
      const client = tokenClient();
      await client.stream(request(), noText, new AbortController().signal);
      await client.stream(request(), noText, new AbortController().signal);
      expect(gateway.received.filter((r) => r.path === '/federation/auth/v1/token')).toHaveLength(2);
    });

    it('turns a refused token request into model_unavailable', async () => {
      gateway.token = (_req, res) => json(res, 401, { error: 'invalid_client' });
      await expect(tokenClient().stream(request(), noText, new AbortController().signal)).rejects.toMatchObject({
        code: 'model_unavailable',
      });
      expect(gateway.chatRequests()).toHaveLength(0);
    });
  });

  it('without any credential fails with model_unavailable and calls nothing', async () => {
    const client = clientWith({ tokenUrl: `${origin}/federation/auth/v1/token` });
    await expect(client.stream(request(), noText, new AbortController().signal)).rejects.toMatchObject({
      code: 'model_unavailable',
    });
    expect(gateway.received).toHaveLength(0);
  });
});
