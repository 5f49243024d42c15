import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { ScriptedUpstream } from './scripted-upstream';

const chatRequest = { model: 'gpt-test', messages: [{ role: 'user' as const, content: 'hi' }] };

function chunk(content: string) {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'gpt-test',
    choices: [{ index: 0, delta: { content }, finish_reason: null }],
  };
}

function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

describe('ScriptedUpstream', () => {
  let upstream: ScriptedUpstream;
  let openai: OpenAI;
  let anthropic: Anthropic;

  beforeAll(async () => {
    upstream = await ScriptedUpstream.start();
    openai = new OpenAI({ baseURL: `${upstream.url}/v1`, apiKey: 'x', maxRetries: 0 });
    anthropic = new Anthropic({ baseURL: upstream.url, apiKey: 'x', maxRetries: 0 });
  });
  afterAll(() => upstream.close());
  beforeEach(() => upstream.reset());

  it('listens on loopback at a free port', () => {
    expect(upstream.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  describe('steps', () => {
    it('answers a json step with its status, headers and body after its delay', async () => {
      upstream.enqueue({
        kind: 'json',
        status: 201,
        headers: { 'x-scripted': 'yes' },
        body: { ok: true },
        delayMs: 60,
      });
      const started = performance.now();
      const res = await post(`${upstream.url}/anything`, {});

      expect(performance.now() - started).toBeGreaterThanOrEqual(55);
      expect(res.status).toBe(201);
      expect(res.headers.get('x-scripted')).toBe('yes');
      expect(res.headers.get('content-type')).toBe('application/json');
      expect(await res.json()).toEqual({ ok: true });
    });

    it('hands a scripted completion to the SDK as is', async () => {
      upstream.enqueue({
        kind: 'json',
        body: {
          id: 'chatcmpl-scripted',
          object: 'chat.completion',
          created: 1,
          model: 'gpt-scripted',
          choices: [{ index: 0, message: { role: 'assistant', content: 'scripted' }, finish_reason: 'length' }],
        },
      });
      const completion = await openai.chat.completions.create(chatRequest);

      expect(completion.id).toBe('chatcmpl-scripted');
      expect(completion.choices[0]).toMatchObject({ message: { content: 'scripted' }, finish_reason: 'length' });
    });

    it('takes steps first in, first out, then falls back to the default answer', async () => {
      upstream.enqueue({ kind: 'json', body: { n: 1 } }, { kind: 'json', body: { n: 2 } });

      expect(await (await post(`${upstream.url}/a`, {})).json()).toEqual({ n: 1 });
      expect(await (await post(`${upstream.url}/a`, {})).json()).toEqual({ n: 2 });
      expect(upstream.pendingSteps).toBe(0);
      const completion = await openai.chat.completions.create(chatRequest);
      expect(completion.choices[0].message.content).toBe('Echo: hi');
    });

    it('gives a step with a path only to a request on that path, leaving the others in order', async () => {
      upstream.enqueue(
        { kind: 'status', status: 503, path: '/v1/embeddings' },
        { kind: 'json', body: { n: 'any path' } },
        { kind: 'json', body: { n: 'with query' }, path: '/v1/models?limit=1' },
      );

      expect(await (await post(`${upstream.url}/v1/chat/completions`, {})).json()).toEqual({ n: 'any path' });
      expect((await post(`${upstream.url}/v1/embeddings?x=1`, {})).status).toBe(503);
      expect(await (await fetch(`${upstream.url}/v1/models`)).json()).toMatchObject({ object: 'list' });
      expect(await (await fetch(`${upstream.url}/v1/models?limit=1`)).json()).toEqual({ n: 'with query' });
      expect(upstream.pendingSteps).toBe(0);
    });

    it('streams sse events with pauses and raw CRLF framing that the SDK parses', async () => {
      upstream.enqueue({
        kind: 'sse',
        events: [
          { data: chunk('one ') },
          { delayMs: 80 },
          { raw: `data: ${JSON.stringify(chunk('two'))}\r\n\r\n` },
          { data: '[DONE]' },
        ],
      });
      const asked = performance.now();
      const stream = await openai.chat.completions.create({ ...chatRequest, stream: true });
      const arrivals: Array<{ content: string | null | undefined; at: number }> = [];
      for await (const received of stream) {
        arrivals.push({ content: received.choices[0].delta.content, at: performance.now() });
      }

      expect(arrivals.map((arrival) => arrival.content)).toEqual(['one ', 'two']);
      // The pause held the second event back: it cannot arrive sooner than 80 ms after the request (a lower
      // bound that load cannot break; the gap between the two arrivals can shrink when the client reads late).
      expect(arrivals[1].at - asked).toBeGreaterThanOrEqual(75);
    });

    it('paces sse events at eventsPerSecond from the stream start and records when each was written', async () => {
      const pieces = Array.from({ length: 10 }, (_, i) => `p${i} `);
      upstream.enqueue({
        kind: 'sse',
        eventsPerSecond: 50,
        events: [...pieces.map((piece) => ({ data: chunk(piece) })), { data: '[DONE]' }],
      });
      const stream = await openai.chat.completions.create({ ...chatRequest, stream: true });
      const received: string[] = [];
      for await (const part of stream) received.push(part.choices[0].delta.content ?? '');

      expect(received).toEqual(pieces);
      const writtenAt = upstream.requests[0].eventsWrittenAt ?? [];
      expect(writtenAt).toHaveLength(11);
      // The 11th event is due 200 ms in (20 ms apart); a late timer may delay it, never hurry it.
      expect(writtenAt[10] - writtenAt[0]).toBeGreaterThanOrEqual(195);
    });

    it('writes named events, string data as is and multi-line data as one data: line per line', async () => {
      upstream.enqueue({
        kind: 'sse',
        headers: { 'x-stream': '1' },
        events: [{ event: 'ping', data: { type: 'ping' } }, { data: 'line one\nline two' }, { data: '[DONE]' }],
      });
      const res = await post(`${upstream.url}/v1/messages`, {});

      expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      expect(res.headers.get('x-stream')).toBe('1');
      expect(await res.text()).toBe(
        'event: ping\ndata: {"type":"ping"}\n\ndata: line one\ndata: line two\n\ndata: [DONE]\n\n',
      );
    });

    it('cuts a stream mid-way on a hangUp item, after the events before it arrived', async () => {
      upstream.enqueue({
        kind: 'sse',
        events: [{ data: chunk('partial') }, { hangUp: true }, { data: chunk('never') }],
      });
      const stream = await openai.chat.completions.create({ ...chatRequest, stream: true });
      const contents: Array<string | null | undefined> = [];
      const consumed = (async () => {
        for await (const received of stream) contents.push(received.choices[0].delta.content);
      })();

      await expect(consumed).rejects.toThrow();
      expect(contents).toEqual(['partial']);
      // The upstream cut it, so no client went away.
      expect(upstream.requests[0].aborted).toBe(false);
    });

    it('answers a status step with its headers and, without a body, the OpenAI error envelope', async () => {
      upstream.enqueue({ kind: 'status', status: 429, headers: { 'retry-after': '7' } });
      const error = await openai.chat.completions.create(chatRequest).catch((caught: unknown) => caught);

      expect(error).toBeInstanceOf(OpenAI.RateLimitError);
      const rateLimited = error as InstanceType<typeof OpenAI.RateLimitError>;
      expect(rateLimited.headers.get('retry-after')).toBe('7');
      expect(rateLimited.error).toMatchObject({ code: 'rate_limit_exceeded' });
    });

    it('gives an Anthropic client the Anthropic error envelope, 529 overloaded included', async () => {
      upstream.enqueue(
        { kind: 'status', status: 529 },
        { kind: 'status', status: 429, headers: { 'retry-after': '3' } },
      );
      const request = { model: 'm', max_tokens: 5, messages: [{ role: 'user' as const, content: 'hi' }] };
      const overloaded = await anthropic.messages.create(request).catch((caught: unknown) => caught);
      const rateLimited = await anthropic.messages.create(request).catch((caught: unknown) => caught);

      expect(overloaded).toBeInstanceOf(Anthropic.InternalServerError);
      expect((overloaded as InstanceType<typeof Anthropic.APIError>).status).toBe(529);
      expect((overloaded as InstanceType<typeof Anthropic.APIError>).error).toEqual({
        type: 'error',
        error: { type: 'overloaded_error', message: 'Overloaded' },
      });
      expect(rateLimited).toBeInstanceOf(Anthropic.RateLimitError);
      expect((rateLimited as InstanceType<typeof Anthropic.APIError>).headers?.get('retry-after')).toBe('3');
    });

    it('sends a status step body as JSON, or a string as plain text', async () => {
      upstream.enqueue(
        { kind: 'status', status: 500, body: { error: { message: 'boom' } } },
        { kind: 'status', status: 502, body: '<html>Bad Gateway</html>' },
      );
      const json = await post(`${upstream.url}/v1/chat/completions`, chatRequest);
      const text = await post(`${upstream.url}/v1/chat/completions`, chatRequest);

      expect(json.status).toBe(500);
      expect(await json.json()).toEqual({ error: { message: 'boom' } });
      expect(text.status).toBe(502);
      expect(text.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(await text.text()).toBe('<html>Bad Gateway</html>');
    });

    it('hangs up without answering, which the SDK reports as a connection error', async () => {
      upstream.enqueue({ kind: 'hangUp' });
      const error = await openai.chat.completions.create(chatRequest).catch((caught: unknown) => caught);

      expect(error).toBeInstanceOf(OpenAI.APIConnectionError);
      expect(upstream.requests[0].aborted).toBe(false);
    });

    it('lets a retrying SDK recover from a hang-up with the next answer', async () => {
      upstream.enqueue({ kind: 'hangUp' });
      const retrying = new OpenAI({ baseURL: `${upstream.url}/v1`, apiKey: 'x', maxRetries: 1 });
      const completion = await retrying.chat.completions.create(chatRequest);

      expect(completion.choices[0].message.content).toBe('Echo: hi');
      expect(upstream.requests).toHaveLength(2);
    });

    it('stalls until the client aborts, and waitForAbort reports that request', async () => {
      upstream.enqueue({ kind: 'stall' });
      const controller = new AbortController();
      const pending = openai.chat.completions
        .create(chatRequest, { signal: controller.signal })
        .catch((caught: unknown) => caught);
      await upstream.waitForRequests(1);
      controller.abort();

      const aborted = await upstream.waitForAbort(2_000);
      expect(aborted).toBe(upstream.requests[0]);
      expect(aborted.aborted).toBe(true);
      expect(await pending).toBeInstanceOf(OpenAI.APIUserAbortError);
    });

    it('reports a client that goes away mid-stream, even before waitForAbort is called', async () => {
      upstream.enqueue({ kind: 'sse', events: [{ data: chunk('first') }, { delayMs: 10_000 }, { data: '[DONE]' }] });
      const stream = await openai.chat.completions.create({ ...chatRequest, stream: true });
      for await (const received of stream) {
        expect(received.choices[0].delta.content).toBe('first');
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));

      const aborted = await upstream.waitForAbort(2_000);
      expect(aborted.path).toBe('/v1/chat/completions');
      await expect(upstream.waitForAbort(100)).rejects.toThrow('waited 100 ms for a client to abort');
    });
  });

  describe('recording', () => {
    it('records method, path with query, lower-cased headers, raw body and parsed JSON', async () => {
      const before = Date.now();
      await fetch(`${upstream.url}/v1/chat/completions?trace=1`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Custom-Header': 'Value' },
        body: '{"model":"m","messages":[]}',
      });

      const [request] = upstream.requests;
      expect(request.method).toBe('POST');
      expect(request.path).toBe('/v1/chat/completions?trace=1');
      expect(request.headers['x-custom-header']).toBe('Value');
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.rawBody.toString()).toBe('{"model":"m","messages":[]}');
      expect(request.json).toEqual({ model: 'm', messages: [] });
      expect(request.receivedAt).toBeGreaterThanOrEqual(before);
      expect(request.receivedAt).toBeLessThanOrEqual(Date.now());
      expect(request.aborted).toBe(false);
    });

    it('records a body without JSON as undefined json and an empty raw body', async () => {
      await fetch(`${upstream.url}/v1/models`);

      expect(upstream.requests[0].rawBody).toHaveLength(0);
      expect(upstream.requests[0].json).toBeUndefined();
    });

    it('waitForRequests resolves once enough requests arrived, and names the shortfall on timeout', async () => {
      const waiting = upstream.waitForRequests(2);
      await fetch(`${upstream.url}/v1/models`);
      await fetch(`${upstream.url}/v1/models`);

      expect(await waiting).toHaveLength(2);
      await expect(upstream.waitForRequests(3, 50)).rejects.toThrow('3 requests (received 2)');
    });

    it('reset clears the recorded requests and the queued steps', async () => {
      upstream.enqueue({ kind: 'status', status: 500 });
      await fetch(`${upstream.url}/v1/models`);
      upstream.enqueue({ kind: 'status', status: 500 });
      upstream.reset();

      expect(upstream.requests).toHaveLength(0);
      expect(upstream.pendingSteps).toBe(0);
      expect((await fetch(`${upstream.url}/v1/models`)).status).toBe(200);
    });
  });
});

describe('ScriptedUpstream lifecycle and options', () => {
  it('waits latencyMs before a default answer', async () => {
    const upstream = await ScriptedUpstream.start({ latencyMs: 60 });
    try {
      const started = performance.now();
      const res = await fetch(`${upstream.url}/v1/models`);

      expect(res.status).toBe(200);
      expect(performance.now() - started).toBeGreaterThanOrEqual(55);
    } finally {
      await upstream.close();
    }
  });

  it('counts requests without keeping them when recording is off', async () => {
    const upstream = await ScriptedUpstream.start({ recordRequests: false });
    try {
      await fetch(`${upstream.url}/v1/models`);

      expect(await upstream.waitForRequests(1)).toHaveLength(0);
    } finally {
      await upstream.close();
    }
  });

  it('closes promptly with a stalled request open, and the client sees the connection end', async () => {
    const upstream = await ScriptedUpstream.start();
    upstream.enqueue({ kind: 'stall' });
    const client = new OpenAI({ baseURL: `${upstream.url}/v1`, apiKey: 'x', maxRetries: 0 });
    const pending = client.chat.completions.create(chatRequest).catch((caught: unknown) => caught);
    await upstream.waitForRequests(1);

    const started = performance.now();
    await upstream.close();

    expect(performance.now() - started).toBeLessThan(1_000);
    expect(await pending).toBeInstanceOf(OpenAI.APIConnectionError);
    expect(upstream.requests[0].aborted).toBe(false);
  });

  it('closes promptly while a scripted delay is pending', async () => {
    const upstream = await ScriptedUpstream.start();
    upstream.enqueue({ kind: 'json', body: {}, delayMs: 60_000 });
    const pending = fetch(`${upstream.url}/x`).catch((caught: unknown) => caught);
    await upstream.waitForRequests(1);

    const started = performance.now();
    await upstream.close();

    expect(performance.now() - started).toBeLessThan(1_000);
    // fetch's TypeError comes from another realm than Jest's, so match its fields.
    expect(await pending).toMatchObject({ name: 'TypeError', message: 'fetch failed' });
  });

  it('refuses to start on a port in use', async () => {
    const first = await ScriptedUpstream.start();
    try {
      const port = Number(new URL(first.url).port);
      await expect(ScriptedUpstream.start({ port })).rejects.toThrow('EADDRINUSE');
    } finally {
      await first.close();
    }
  });
});
