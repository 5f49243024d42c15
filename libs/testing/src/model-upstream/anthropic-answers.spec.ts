import Anthropic from '@anthropic-ai/sdk';
import { ScriptedUpstream } from './scripted-upstream';

const weatherTool = {
  name: 'get_weather',
  input_schema: { type: 'object' as const, properties: { input: { type: 'string' } } },
};

describe('ScriptedUpstream default answers, read by the Anthropic SDK', () => {
  let upstream: ScriptedUpstream;
  let client: Anthropic;

  beforeAll(async () => {
    upstream = await ScriptedUpstream.start();
    client = new Anthropic({ baseURL: upstream.url, apiKey: 'x', maxRetries: 0 });
  });
  afterAll(() => upstream.close());
  beforeEach(() => upstream.reset());

  it('echoes the last user message with usage at four characters a token and no cache tokens', async () => {
    const message = await client.messages.create({
      model: 'claude-test',
      max_tokens: 100,
      system: 'Be brief.',
      messages: [
        { role: 'user', content: 'first' },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: [{ type: 'text', text: 'Hello there' }] },
      ],
    });

    expect(message).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'claude-test',
      content: [{ type: 'text', text: 'Echo: Hello there' }],
      stop_reason: 'end_turn',
    });
    // 9 + 5 + 2 + 11 = 27 characters of prompt, 17 of answer.
    expect(message.usage).toEqual({
      input_tokens: 7,
      output_tokens: 5,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    });
  });

  it('streams the echo as text deltas that messages.stream() assembles', async () => {
    const stream = client.messages.stream({
      model: 'claude-test',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'stream a longer sentence please' }],
    });
    const types: string[] = [];
    const deltas: string[] = [];
    stream.on('streamEvent', (event) => types.push(event.type));
    stream.on('text', (delta) => deltas.push(delta));
    const message = await stream.finalMessage();

    expect(types.slice(0, 3)).toEqual(['message_start', 'content_block_start', 'content_block_delta']);
    expect(types.slice(-3)).toEqual(['content_block_stop', 'message_delta', 'message_stop']);
    expect(deltas.join('')).toBe('Echo: stream a longer sentence please');
    expect(Math.max(...deltas.map((delta) => delta.length))).toBeLessThanOrEqual(8);
    expect(message.content).toEqual([{ type: 'text', text: 'Echo: stream a longer sentence please' }]);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.usage.input_tokens).toBe(8);
    expect(message.usage.output_tokens).toBe(10);
  });

  it('frames each event with its event: name and sends a ping after message_start', async () => {
    const res = await fetch(`${upstream.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }], stream: true }),
    });
    const text = await res.text();
    const names = [...text.matchAll(/^event: (.+)$/gm)].map((match) => match[1]);

    expect(names.slice(0, 2)).toEqual(['message_start', 'ping']);
    expect(text).toContain('"usage":{"input_tokens":1,"output_tokens":1,');
    expect(names.at(-1)).toBe('message_stop');
  });

  it('calls the first tool with the last user text, plain and streamed', async () => {
    const request = {
      model: 'claude-test',
      max_tokens: 100,
      messages: [{ role: 'user' as const, content: 'weather in Oslo' }],
      tools: [weatherTool, { ...weatherTool, name: 'second_tool' }],
    };
    const plain = await client.messages.create(request);
    const streamed = await client.messages.stream(request).finalMessage();

    for (const message of [plain, streamed]) {
      expect(message.stop_reason).toBe('tool_use');
      expect(message.content).toEqual([
        {
          type: 'tool_use',
          id: expect.stringMatching(/^toolu_/),
          name: 'get_weather',
          input: { input: 'weather in Oslo' },
        },
      ]);
      expect(message.usage.output_tokens).toBe(Math.ceil('{"input":"weather in Oslo"}'.length / 4));
    }
  });

  it('answers a tool result with text, so a tool loop ends', async () => {
    const message = await client.messages.create({
      model: 'claude-test',
      max_tokens: 100,
      tools: [weatherTool],
      messages: [
        { role: 'user', content: 'weather in Oslo' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' }] },
      ],
    });

    expect(message.stop_reason).toBe('end_turn');
    expect(message.content).toEqual([{ type: 'text', text: 'Echo: weather in Oslo' }]);
  });

  it('counts the input tokens as the message answer would', async () => {
    const request = {
      model: 'claude-test',
      system: 'Be brief.',
      messages: [{ role: 'user' as const, content: 'how many tokens is this?' }],
    };
    const counted = await client.messages.countTokens(request);
    const answered = await client.messages.create({ ...request, max_tokens: 10 });

    expect(counted).toEqual({ input_tokens: Math.ceil((9 + 24) / 4) });
    expect(answered.usage.input_tokens).toBe(counted.input_tokens);
  });

  it('lists one model in Anthropic shape for a client that sends anthropic-version', async () => {
    const models = [];
    for await (const model of client.models.list()) models.push(model);

    expect(models).toEqual([
      { type: 'model', id: 'mock-model', display_name: 'Mock model', created_at: '1970-01-01T00:00:00Z' },
    ]);
  });

  it('refuses a request without anthropic-version with a 400 in Anthropic error format', async () => {
    const res = await fetch(`${upstream.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }),
    });

    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'anthropic-version: header is required' },
    });
  });

  it('receives the anthropic-version header the SDK sends', async () => {
    await client.messages.create({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] });

    expect(upstream.requests[0].headers['anthropic-version']).toEqual(expect.any(String));
    expect(upstream.requests[0].headers['user-agent']).toMatch(/^Anthropic\/JS /);
  });
});
