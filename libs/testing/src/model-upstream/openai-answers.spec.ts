import OpenAI, { AzureOpenAI } from 'openai';
import { ScriptedUpstream } from './scripted-upstream';

const weatherTool = {
  type: 'function' as const,
  function: { name: 'get_weather', parameters: { type: 'object', properties: { input: { type: 'string' } } } },
};

describe('ScriptedUpstream default answers, read by the OpenAI SDK', () => {
  let upstream: ScriptedUpstream;
  let client: OpenAI;

  beforeAll(async () => {
    upstream = await ScriptedUpstream.start();
    client = new OpenAI({ baseURL: `${upstream.url}/v1`, apiKey: 'x', maxRetries: 0 });
  });
  afterAll(() => upstream.close());
  beforeEach(() => upstream.reset());

  it('echoes the last user message, text parts joined, with usage at four characters a token', async () => {
    const completion = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'first question' },
        { role: 'assistant', content: 'an answer' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Hello, ' },
            { type: 'text', text: 'world' },
          ],
        },
      ],
    });

    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe('gpt-test');
    expect(completion.choices[0].message).toMatchObject({ role: 'assistant', content: 'Echo: Hello, world' });
    expect(completion.choices[0].finish_reason).toBe('stop');
    // 9 + 14 + 9 + 12 = 44 characters of prompt, 18 of answer.
    expect(completion.usage).toEqual({ prompt_tokens: 11, completion_tokens: 5, total_tokens: 16 });
  });

  it('streams the echo in pieces of about eight characters, with no usage field when none was asked', async () => {
    const stream = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'stream me a longer sentence' }],
      stream: true,
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);

    expect(chunks[0].choices[0].delta.role).toBe('assistant');
    const pieces = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').filter((piece) => piece !== '');
    expect(pieces.join('')).toBe('Echo: stream me a longer sentence');
    expect(pieces.length).toBeGreaterThan(3);
    expect(Math.max(...pieces.map((piece) => piece.length))).toBeLessThanOrEqual(8);
    expect(chunks.at(-1)?.choices[0].finish_reason).toBe('stop');
    expect(chunks.every((chunk) => !('usage' in chunk))).toBe(true);
  });

  it('ends a stream with a usage chunk and marks every chunk usage: null when include_usage is set', async () => {
    const stream = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'count me' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);

    const last = chunks.at(-1);
    expect(last?.choices).toEqual([]);
    expect(last?.usage).toEqual({ prompt_tokens: 2, completion_tokens: 4, total_tokens: 6 });
    expect(chunks.slice(0, -1).every((chunk) => chunk.usage === null)).toBe(true);
  });

  it('ends the raw stream with data: [DONE]', async () => {
    const res = await fetch(`${upstream.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true }),
    });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const text = await res.text();
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
  });

  it('calls the first tool with the last user text when tools are given and the user spoke last', async () => {
    const completion = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'weather in Oslo' }],
      tools: [weatherTool, { type: 'function', function: { name: 'second_tool' } }],
    });

    const choice = completion.choices[0];
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBeNull();
    expect(choice.message.tool_calls).toEqual([
      {
        id: expect.stringMatching(/^call_/),
        type: 'function',
        function: { name: 'get_weather', arguments: '{"input":"weather in Oslo"}' },
      },
    ]);
    expect(completion.usage?.completion_tokens).toBe(Math.ceil('{"input":"weather in Oslo"}'.length / 4));
  });

  it('answers a tool result with text, so a tool loop ends', async () => {
    const completion = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [
        { role: 'user', content: 'weather in Oslo' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
      ],
      tools: [weatherTool],
    });

    expect(completion.choices[0].finish_reason).toBe('stop');
    expect(completion.choices[0].message.content).toBe('Echo: weather in Oslo');
  });

  it('streams a tool call whose arguments come in two pieces, which the SDK assembles', async () => {
    const stream = client.chat.completions.stream({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'weather in Oslo' }],
      tools: [weatherTool],
    });
    const argumentDeltas: string[] = [];
    stream.on('chunk', (chunk) => {
      const args = chunk.choices[0]?.delta.tool_calls?.[0]?.function?.arguments;
      if (args) argumentDeltas.push(args);
    });
    const completion = await stream.finalChatCompletion();

    expect(argumentDeltas).toHaveLength(2);
    expect(completion.choices[0].finish_reason).toBe('tool_calls');
    expect(completion.choices[0].message.tool_calls?.[0]).toMatchObject({
      type: 'function',
      function: { name: 'get_weather', arguments: '{"input":"weather in Oslo"}' },
    });
  });

  it('answers an Azure deployment path, naming the deployment as the model', async () => {
    const azure = new AzureOpenAI({
      endpoint: upstream.url,
      apiKey: 'x',
      apiVersion: '2024-10-21',
      deployment: 'my-gpt',
      maxRetries: 0,
    });
    const completion = await azure.chat.completions.create({
      model: '',
      messages: [{ role: 'user', content: 'from Azure' }],
    });

    expect(completion.choices[0].message.content).toBe('Echo: from Azure');
    expect(upstream.requests[0].path).toBe('/openai/deployments/my-gpt/chat/completions?api-version=2024-10-21');
  });

  it('embeds each input as eight deterministic numbers, decoded from base64 by the SDK', async () => {
    const first = await client.embeddings.create({ model: 'embed-test', input: ['alpha', 'beta'] });
    const again = await client.embeddings.create({ model: 'embed-test', input: 'alpha' });

    expect(upstream.requests[0].json).toMatchObject({ encoding_format: 'base64' });
    expect(first.model).toBe('embed-test');
    expect(first.data.map((item) => item.index)).toEqual([0, 1]);
    expect(first.data[0].embedding).toHaveLength(8);
    expect(first.data[0].embedding).not.toEqual(first.data[1].embedding);
    expect(again.data[0].embedding).toEqual(first.data[0].embedding);
    expect(first.data[0].embedding.every((value) => value >= -1 && value < 1)).toBe(true);
    expect(first.usage).toEqual({ prompt_tokens: 3, total_tokens: 3 });
  });

  it('sends float embeddings when the caller asks for floats', async () => {
    const floats = await client.embeddings.create({ model: 'embed-test', input: 'alpha', encoding_format: 'float' });
    const decoded = await client.embeddings.create({ model: 'embed-test', input: 'alpha' });

    expect(Array.isArray(floats.data[0].embedding)).toBe(true);
    expect(floats.data[0].embedding).toEqual(decoded.data[0].embedding);
  });

  it('lists one model', async () => {
    const models = [];
    for await (const model of client.models.list()) models.push(model);

    expect(models).toEqual([{ id: 'mock-model', object: 'model', created: 0, owned_by: 'mock' }]);
  });

  it('answers the Responses API with a completed message the SDK reads as output_text', async () => {
    const response = await client.responses.create({
      model: 'gpt-test',
      instructions: 'Be brief.',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'hello responses' }] }],
    });

    expect(response.id).toMatch(/^resp_/);
    expect(response.status).toBe('completed');
    expect(response.model).toBe('gpt-test');
    expect(response.output_text).toBe('Echo: hello responses');
    // 9 + 15 characters of input, 21 of output.
    expect(response.usage).toEqual({
      input_tokens: 6,
      output_tokens: 6,
      total_tokens: 12,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens_details: { reasoning_tokens: 0 },
    });
  });

  it('streams the Responses API events the SDK needs to build the final response', async () => {
    const stream = client.responses.stream({ model: 'gpt-test', input: 'a streamed response' });
    const deltas: string[] = [];
    stream.on('response.output_text.delta', (event) => deltas.push(event.delta));
    const response = await stream.finalResponse();

    expect(deltas.join('')).toBe('Echo: a streamed response');
    expect(deltas.length).toBeGreaterThan(1);
    expect(response.status).toBe('completed');
    expect(response.output_text).toBe('Echo: a streamed response');
    expect(response.usage?.output_tokens).toBe(7);
  });

  it('answers an unknown path with a 404 in OpenAI error format', async () => {
    const error = await client.get('/nothing-here').catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect((error as InstanceType<typeof OpenAI.NotFoundError>).error).toMatchObject({ code: 'not_found' });
  });

  it('refuses a body that is not a JSON object with a 400', async () => {
    const res = await fetch(`${upstream.url}/v1/chat/completions`, { method: 'POST', body: 'not json' });

    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { type: 'invalid_request_error' } });
    expect(upstream.requests[0].json).toBeUndefined();
    expect(upstream.requests[0].rawBody.toString()).toBe('not json');
  });
});
