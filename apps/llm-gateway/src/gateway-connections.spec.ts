import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { ScriptedUpstream, type SseItem } from '@fed/testing';
import { type RunningGateway, bootGateway } from './testing/boot-gateway';

const chunk = (content: string) => ({
  id: 'c1',
  object: 'chat.completion.chunk',
  created: 0,
  model: 'gpt-4o',
  choices: [{ index: 0, delta: { content }, finish_reason: null }],
});

/** A streamed answer whose first piece comes at once and whose end comes `holdMs` later. */
function longStream(holdMs: number): { kind: 'sse'; events: SseItem[] } {
  return { kind: 'sse', events: [{ data: chunk('first') }, { delayMs: holdMs }, { data: '[DONE]' }] };
}

/** Provider connections: no small fixed pool by default; a configured cap fails waiting calls clearly. */
describe('model gateway: connections to a provider', () => {
  let database: TestDatabase;
  let upstream: ScriptedUpstream;
  let gateway: RunningGateway;
  let apiKey: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    upstream = await ScriptedUpstream.start();
    gateway = await bootGateway({
      databaseUrl: database.url,
      routing: {
        providers: [
          { name: 'open', type: 'openai', baseUrl: `${upstream.url}/v1`, apiKey: 'k1' },
          {
            name: 'capped',
            type: 'openai',
            baseUrl: `${upstream.url}/capped/v1`,
            apiKey: 'k2',
            connections: 1,
            queueTimeoutSeconds: 1,
          },
        ],
        models: [
          { name: 'open-model', deployments: [{ provider: 'open', model: 'gpt-4o' }] },
          { name: 'capped-model', deployments: [{ provider: 'capped', model: 'gpt-4o' }] },
        ],
        retries: { attempts: 2, initialBackoffMs: 10, maxBackoffMs: 50 },
      },
    });
    apiKey = await gateway.createKey();
  });

  afterAll(async () => {
    await gateway?.service.shutdown('test');
    await upstream?.close();
    await database?.drop();
  });

  beforeEach(() => upstream.reset());

  const post = (model: string, stream: boolean, headers: Record<string, string> = {}, path = '/chat/completions') =>
    fetch(`${gateway.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}`, ...headers },
      body: JSON.stringify(
        path === '/messages'
          ? { model, max_tokens: 10, stream, messages: [{ role: 'user', content: 'hi' }] }
          : { model, stream, messages: [{ role: 'user', content: 'hi' }] },
      ),
    });

  /** Reads a streamed answer until its first content piece has arrived. */
  async function firstPiece(res: Response): Promise<ReadableStreamDefaultReader<Uint8Array>> {
    expect(res.status).toBe(200);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    while (!text.includes('first')) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the stream ended before its first piece: ${text}`);
      text += Buffer.from(value).toString('utf8');
    }
    return reader;
  }

  it('by default keeps no fixed pool: 150 long streams to one provider all stream at once', async () => {
    const streams = 150;
    upstream.enqueue(...Array.from({ length: streams }, () => longStream(30_000)));
    const readers = await Promise.all(
      Array.from({ length: streams }, async () => firstPiece(await post('open-model', true))),
    );
    // Every one is open and has shown its first piece while the others are still streaming.
    expect(readers).toHaveLength(streams);
    await Promise.all(readers.map((reader) => reader.cancel()));
  });

  it('with a cap, answers a call that waited the whole queue timeout 503 upstream_busy with retry-after', async () => {
    upstream.enqueue(longStream(30_000));
    const holder = await firstPiece(await post('capped-model', true));
    try {
      const refused = await post('capped-model', false);
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('5');
      expect(refused.headers.get('x-should-retry')).toBe('true');
      expect(await refused.json()).toEqual({
        error: {
          message: expect.stringContaining('every connection to provider capped stayed busy'),
          type: 'api_error',
          param: null,
          code: 'upstream_busy',
        },
      });
      const inMessages = await post('capped-model', false, { 'anthropic-version': '2023-06-01' }, '/messages');
      expect(inMessages.status).toBe(503);
      expect(((await inMessages.json()) as { error: { type: string } }).error.type).toBe('overloaded_error');
      // The waiting calls never reached the provider: only the stream holding the connection did.
      expect(upstream.requests).toHaveLength(1);
    } finally {
      await holder.cancel();
    }
  });

  it('with a cap, gives the connection to the next call once a stream has ended', async () => {
    upstream.enqueue(longStream(300));
    const first = await post('capped-model', true);
    const waiting = post('capped-model', false);
    await first.text();
    const second = await waiting;
    expect(second.status).toBe(200);
    expect(((await second.json()) as { choices: { message: { content: string } }[] }).choices[0]?.message.content).toBe(
      'Echo: hi',
    );
  });
});
