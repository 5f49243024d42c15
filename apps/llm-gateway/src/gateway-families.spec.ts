import Anthropic from '@anthropic-ai/sdk';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { ScriptedUpstream } from '@fed/testing';
import OpenAI from 'openai';
import { type RunningGateway, bootGateway, gatewayLogRows } from './testing/boot-gateway';

/**
 * Both API families through the official clients, against a scripted upstream that speaks both
 * provider APIs: same family passed through, the other family translated, streams included.
 */
describe('model gateway: both API families with the official clients', () => {
  let database: TestDatabase;
  let upstream: ScriptedUpstream;
  let gateway: RunningGateway;
  let apiKey: string;
  let openai: OpenAI;
  let anthropic: Anthropic;

  beforeAll(async () => {
    database = await createTestDatabase();
    upstream = await ScriptedUpstream.start();
    gateway = await bootGateway({
      databaseUrl: database.url,
      routing: {
        providers: [
          { name: 'oai', type: 'openai', baseUrl: `${upstream.url}/v1`, apiKey: 'sk-upstream-openai' },
          { name: 'ant', type: 'anthropic', baseUrl: upstream.url, apiKey: 'sk-upstream-anthropic' },
          { name: 'azure', type: 'azure-openai', baseUrl: upstream.url, apiKey: 'azure-key', apiVersion: '2024-10-21' },
        ],
        models: [
          {
            name: 'gpt-test',
            aliases: ['fast'],
            tier: 'standard',
            deployments: [{ provider: 'oai', model: 'gpt-4o' }],
          },
          { name: 'claude-test', tier: 'premium', deployments: [{ provider: 'ant', model: 'claude-sonnet-4-5' }] },
          { name: 'azure-test', deployments: [{ provider: 'azure', model: 'gpt-4o', deployment: 'gpt4o-prod' }] },
        ],
      },
    });
    apiKey = await gateway.createKey();
    openai = new OpenAI({ baseURL: gateway.baseUrl, apiKey, maxRetries: 0 });
    anthropic = new Anthropic({ baseURL: gateway.baseUrl.replace(/\/v1$/, ''), apiKey, maxRetries: 0 });
  });

  afterAll(async () => {
    await gateway?.service.shutdown('test');
    await upstream?.close();
    await database?.drop();
  });

  beforeEach(() => upstream.reset());

  describe('chat-completions family to a chat-completions provider (passed through)', () => {
    it('answers a completion and sends the provider its own model name and key', async () => {
      const completion = await openai.chat.completions.create({
        model: 'gpt-test',
        messages: [{ role: 'user', content: 'hello there' }],
      });
      expect(completion.choices[0]?.message.content).toBe('Echo: hello there');
      expect(completion.usage?.total_tokens).toBeGreaterThan(0);
      const sent = upstream.requests[0];
      expect(sent?.path).toBe('/v1/chat/completions');
      expect((sent?.json as { model: string }).model).toBe('gpt-4o');
      expect(sent?.headers.authorization).toBe('Bearer sk-upstream-openai');
    });

    it('resolves an alias to its model', async () => {
      const completion = await openai.chat.completions.create({
        model: 'fast',
        messages: [{ role: 'user', content: 'a' }],
      });
      expect(completion.choices[0]?.message.content).toBe('Echo: a');
    });

    it('streams chunks, asks the provider for usage and hides that chunk from a client that did not ask', async () => {
      const stream = await openai.chat.completions.create({
        model: 'gpt-test',
        messages: [{ role: 'user', content: 'stream this please' }],
        stream: true,
      });
      let text = '';
      const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
      for await (const chunk of stream) {
        chunks.push(chunk);
        text += chunk.choices[0]?.delta.content ?? '';
      }
      expect(text).toBe('Echo: stream this please');
      expect(chunks.every((chunk) => chunk.choices.length === 1)).toBe(true);
      expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('stop');
      expect((upstream.requests[0]?.json as { stream_options?: unknown }).stream_options).toEqual({
        include_usage: true,
      });
    });

    it('passes the usage chunk to a client that asked for it', async () => {
      const stream = await openai.chat.completions.create({
        model: 'gpt-test',
        messages: [{ role: 'user', content: 'count me' }],
        stream: true,
        stream_options: { include_usage: true },
      });
      const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
      for await (const chunk of stream) chunks.push(chunk);
      const last = chunks.at(-1);
      expect(last?.choices).toEqual([]);
      expect(last?.usage?.completion_tokens).toBeGreaterThan(0);
    });
  });

  it('calls an Azure OpenAI deployment by its URL, api-version and api-key header', async () => {
    const completion = await openai.chat.completions.create({
      model: 'azure-test',
      messages: [{ role: 'user', content: 'from azure' }],
    });
    expect(completion.choices[0]?.message.content).toBe('Echo: from azure');
    const sent = upstream.requests[0];
    expect(sent?.path).toBe('/openai/deployments/gpt4o-prod/chat/completions?api-version=2024-10-21');
    expect(sent?.headers['api-key']).toBe('azure-key');
    expect(sent?.headers.authorization).toBeUndefined();
  });

  describe('the stream passed through byte for byte', () => {
    const chunk = (content: string | null, extra: Record<string, unknown> = {}) =>
      JSON.stringify({
        id: 'c',
        object: 'chat.completion.chunk',
        created: 1,
        model: 'gpt-4o',
        choices: content === null ? [] : [{ index: 0, delta: { content }, finish_reason: null }],
        usage: null,
        ...extra,
      });
    const usage = { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 };
    // CRLF line ends, a comment, an event split across two writes, extra spaces: all valid SSE.
    const upstreamText = [
      `: keep-alive\r\n\r\n`,
      `data: ${chunk('Hel')}\r\n\r\n`,
      `data:  ${chunk('lo')}\r\n`,
      `\r\n`,
      `data: ${chunk(null, { usage })}\r\n\r\n`,
      `data: [DONE]\r\n\r\n`,
    ];

    const rawStream = async (body: Record<string, unknown>) => {
      upstream.enqueue({ kind: 'sse', events: upstreamText.map((raw) => ({ raw })) });
      const res = await fetch(`${gateway.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
        body: JSON.stringify({ model: 'gpt-test', messages: [{ role: 'user', content: 'x' }], stream: true, ...body }),
      });
      expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
      return res.text();
    };

    it('gives a client that asked for usage exactly the bytes the provider sent', async () => {
      expect(await rawStream({ stream_options: { include_usage: true } })).toBe(upstreamText.join(''));
    });

    it('gives a client that did not ask the same bytes without the usage chunk, and still logs the usage', async () => {
      const expected = upstreamText.filter((_, i) => i !== 4).join('');
      expect(await rawStream({})).toBe(expected);
      // Both streams of this block were billed from the provider's usage chunk.
      const until = Date.now() + 5000;
      let billed: unknown[] = [];
      while (billed.length < 2 && Date.now() < until) {
        billed = (await gatewayLogRows(gateway, 0, 0)).filter(
          (row) => row.input_tokens === 11 && row.output_tokens === 7 && row.usage_status === 'reported',
        );
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(billed).toHaveLength(2);
    });
  });

  describe('messages family to a messages provider (passed through)', () => {
    it('answers a message, forwarding anthropic-version and anthropic-beta unchanged', async () => {
      const message = await anthropic.messages.create(
        { model: 'claude-test', max_tokens: 100, messages: [{ role: 'user', content: 'bonjour' }] },
        {
          headers: {
            'anthropic-version': '2023-06-01',
            'anthropic-beta': 'prompt-caching-2024-07-31,token-efficient-tools-2025-02-19',
          },
        },
      );
      expect(message.content[0]).toMatchObject({ type: 'text', text: 'Echo: bonjour' });
      const sent = upstream.requests[0];
      expect(sent?.path).toBe('/v1/messages');
      expect((sent?.json as { model: string }).model).toBe('claude-sonnet-4-5');
      expect(sent?.headers['x-api-key']).toBe('sk-upstream-anthropic');
      expect(sent?.headers['anthropic-version']).toBe('2023-06-01');
      expect(sent?.headers['anthropic-beta']).toBe('prompt-caching-2024-07-31,token-efficient-tools-2025-02-19');
    });

    it('streams message_start .. content_block_delta .. message_stop', async () => {
      const stream = anthropic.messages.stream({
        model: 'claude-test',
        max_tokens: 100,
        messages: [{ role: 'user', content: 'stream me' }],
      });
      const types: string[] = [];
      stream.on('streamEvent', (event) => types.push(event.type));
      const message = await stream.finalMessage();
      expect(message.content[0]).toMatchObject({ type: 'text', text: 'Echo: stream me' });
      expect(types[0]).toBe('message_start');
      expect(types).toContain('content_block_delta');
      expect(types.at(-1)).toBe('message_stop');
      expect(message.usage.output_tokens).toBeGreaterThan(0);
    });
  });

  describe('translation between the families', () => {
    const weather: OpenAI.Chat.Completions.ChatCompletionTool = {
      type: 'function',
      function: {
        name: 'get_weather',
        description: 'Weather of a city',
        parameters: { type: 'object', properties: { input: { type: 'string' } }, required: ['input'] },
      },
    };

    it('chat-completions client, messages provider: a tool call, then the answer to its result', async () => {
      const first = await openai.chat.completions.create({
        model: 'claude-test',
        messages: [{ role: 'user', content: 'Paris' }],
        tools: [weather],
      });
      const call = first.choices[0]?.message
        .tool_calls?.[0] as OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall;
      expect(first.choices[0]?.finish_reason).toBe('tool_calls');
      expect(call.function.name).toBe('get_weather');
      expect(JSON.parse(call.function.arguments)).toEqual({ input: 'Paris' });
      const sent = upstream.requests[0]?.json as {
        tools: { name: string; input_schema: unknown }[];
        max_tokens: number;
      };
      expect(sent.tools[0]?.name).toBe('get_weather');
      expect(sent.max_tokens).toBeGreaterThan(0);

      const second = await openai.chat.completions.create({
        model: 'claude-test',
        messages: [
          { role: 'user', content: 'Paris' },
          { role: 'assistant', content: null, tool_calls: [call] },
          { role: 'tool', tool_call_id: call.id, content: 'sunny, 21 C' },
        ],
        tools: [weather],
      });
      expect(second.choices[0]?.message.content).toMatch(/^Echo: /);
      const history = (upstream.requests[1]?.json as { messages: { role: string; content: unknown }[] }).messages;
      expect(history.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
      expect(JSON.stringify(history[2]?.content)).toContain('"tool_result"');
    });

    it('chat-completions client, messages provider, streamed: text and a tool call with its arguments', async () => {
      const stream = await openai.chat.completions.create({
        model: 'claude-test',
        messages: [{ role: 'user', content: 'Lyon' }],
        tools: [weather],
        stream: true,
        stream_options: { include_usage: true },
      });
      let args = '';
      let name = '';
      let finish: string | null | undefined;
      let usage: OpenAI.CompletionUsage | null | undefined;
      for await (const chunk of stream) {
        const call = chunk.choices[0]?.delta.tool_calls?.[0];
        name += call?.function?.name ?? '';
        args += call?.function?.arguments ?? '';
        finish = chunk.choices[0]?.finish_reason ?? finish;
        usage = chunk.usage ?? usage;
      }
      expect(name).toBe('get_weather');
      expect(JSON.parse(args)).toEqual({ input: 'Lyon' });
      expect(finish).toBe('tool_calls');
      expect(usage?.prompt_tokens).toBeGreaterThan(0);
    });

    it('messages client, chat-completions provider: a tool_use block, streamed and not', async () => {
      const tools: Anthropic.Tool[] = [
        {
          name: 'lookup',
          description: 'Look up',
          input_schema: { type: 'object', properties: { input: { type: 'string' } } },
        },
      ];
      const message = await anthropic.messages.create({
        model: 'gpt-test',
        max_tokens: 200,
        messages: [{ role: 'user', content: 'Berlin' }],
        tools,
      });
      expect(message.stop_reason).toBe('tool_use');
      expect(message.content.find((b) => b.type === 'tool_use')).toMatchObject({
        name: 'lookup',
        input: { input: 'Berlin' },
      });
      expect((upstream.requests[0]?.json as { tools: unknown[] }).tools[0]).toMatchObject({
        type: 'function',
        function: { name: 'lookup' },
      });

      const stream = anthropic.messages.stream({
        model: 'gpt-test',
        max_tokens: 200,
        messages: [{ role: 'user', content: 'Rome' }],
        tools,
      });
      const streamed = await stream.finalMessage();
      expect(streamed.stop_reason).toBe('tool_use');
      expect(streamed.content.find((b) => b.type === 'tool_use')).toMatchObject({
        name: 'lookup',
        input: { input: 'Rome' },
      });
      expect(streamed.usage.input_tokens).toBeGreaterThan(0);
      expect((upstream.requests[1]?.json as { stream_options: unknown }).stream_options).toEqual({
        include_usage: true,
      });
    });
  });

  describe('the demo model, offline', () => {
    it('answers in both families and says it is a demo', async () => {
      const completion = await openai.chat.completions.create({
        model: 'demo',
        messages: [{ role: 'user', content: 'hi' }],
      });
      expect(completion.choices[0]?.message.content).toMatch(/demo model/);
      const message = await anthropic.messages.create({
        model: 'demo',
        max_tokens: 50,
        messages: [{ role: 'user', content: 'hi' }],
      });
      expect(message.content[0]).toMatchObject({ type: 'text' });
      expect(JSON.stringify(message.content)).toMatch(/demo model/);
      expect(upstream.requests).toHaveLength(0);
    });
  });

  it('writes one gateway log row per request with the provider usage and cost', async () => {
    const rows = await gatewayLogRows(gateway, 12);
    const first = rows.find((row) => row.resolved_model === 'gpt-4o' && row.stream === false);
    expect(first).toMatchObject({
      api_flavor: 'chat_completions',
      model_name: 'gpt-test',
      provider: 'oai',
      tier: 'standard',
      success: true,
      http_status: 200,
      usage_status: 'reported',
      currency: 'USD',
    });
    expect(Number(first?.input_tokens)).toBeGreaterThan(0);
    expect(Number(first?.cost_usd)).toBeGreaterThan(0);
  });
});
