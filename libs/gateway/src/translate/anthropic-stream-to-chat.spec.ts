import { type AnthropicStreamEvent, type AnthropicUsage, type ChatCompletionChunk } from '../wire';
import { AnthropicStreamToChat } from './anthropic-stream-to-chat';

type Frame = ChatCompletionChunk | { error: Record<string, unknown> } | '[DONE]';

/** Splits SSE text into its `data:` payloads, checking the framing on the way. */
function frames(sse: string): Frame[] {
  if (sse === '') return [];
  expect(sse.endsWith('\n\n')).toBe(true);
  return sse
    .slice(0, -2)
    .split('\n\n')
    .map((frame) => {
      expect(frame.startsWith('data: ')).toBe(true);
      const data = frame.slice('data: '.length);
      return data === '[DONE]' ? '[DONE]' : (JSON.parse(data) as Frame);
    });
}

function run(translator: AnthropicStreamToChat, events: AnthropicStreamEvent[]): Frame[] {
  return [...events.flatMap((event) => frames(translator.push(event))), ...frames(translator.end())];
}

const chunks = (all: Frame[]) => all.filter((f): f is ChatCompletionChunk => typeof f === 'object' && 'choices' in f);
const deltas = (all: Frame[]) => chunks(all).flatMap((c) => c.choices.map((choice) => choice.delta));

function messageStart(usage: AnthropicUsage = { input_tokens: 25, output_tokens: 1 }): AnthropicStreamEvent {
  return {
    type: 'message_start',
    message: {
      id: 'msg_01XYZ',
      type: 'message',
      role: 'assistant',
      model: 'claude-upstream',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage,
    },
  };
}

function messageDelta(
  stopReason: 'end_turn' | 'tool_use' | 'max_tokens',
  usage: Extract<AnthropicStreamEvent, { type: 'message_delta' }>['usage'] = { output_tokens: 15 },
): AnthropicStreamEvent {
  return { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage };
}

const textEvents: AnthropicStreamEvent[] = [
  messageStart(),
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  { type: 'ping' },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hello' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: ', world' } },
  { type: 'content_block_stop', index: 0 },
  messageDelta('end_turn'),
  { type: 'message_stop' },
];

const toolEvents: AnthropicStreamEvent[] = [
  messageStart(),
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Reading both.' } },
  { type: 'content_block_stop', index: 0 },
  {
    type: 'content_block_start',
    index: 1,
    content_block: { type: 'tool_use', id: 'toolu_a', name: 'read', input: {} },
  },
  { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '' } },
  { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"pa' } },
  { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: 'th":"a.ts"}' } },
  { type: 'content_block_stop', index: 1 },
  {
    type: 'content_block_start',
    index: 2,
    content_block: { type: 'tool_use', id: 'toolu_b', name: 'read', input: {} },
  },
  { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{"path":' } },
  { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '"b.ts"}' } },
  { type: 'content_block_stop', index: 2 },
  messageDelta('tool_use', { output_tokens: 40 }),
  { type: 'message_stop' },
];

describe('AnthropicStreamToChat', () => {
  it('streams text as chunks: a role chunk, content deltas, a finishing chunk, then [DONE]', () => {
    const all = run(
      new AnthropicStreamToChat({ model: 'client-model', includeUsage: false, created: 1_700_000_000 }),
      textEvents,
    );
    expect(all.at(-1)).toBe('[DONE]');
    const streamed = chunks(all);
    for (const chunk of streamed) {
      expect(chunk).toMatchObject({
        id: 'chatcmpl-01XYZ',
        object: 'chat.completion.chunk',
        created: 1_700_000_000,
        model: 'client-model',
      });
      expect(chunk.choices).toHaveLength(1);
      expect(chunk.choices[0]).toMatchObject({ index: 0, logprobs: null });
    }
    expect(streamed.map((c) => [c.choices[0]!.delta, c.choices[0]!.finish_reason])).toEqual([
      [{ role: 'assistant', content: '' }, null],
      [{ content: 'Hello' }, null],
      [{ content: ', world' }, null],
      [{}, 'stop'],
    ]);
  });

  it('numbers tool calls from 0 in the message, whatever their block index, and streams their arguments', () => {
    const all = run(new AnthropicStreamToChat({ model: 'm', includeUsage: false }), toolEvents);
    expect(deltas(all)).toEqual([
      { role: 'assistant', content: '' },
      { content: 'Reading both.' },
      { tool_calls: [{ index: 0, id: 'toolu_a', type: 'function', function: { name: 'read', arguments: '' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '{"pa' } }] },
      { tool_calls: [{ index: 0, function: { arguments: 'th":"a.ts"}' } }] },
      { tool_calls: [{ index: 1, id: 'toolu_b', type: 'function', function: { name: 'read', arguments: '' } }] },
      { tool_calls: [{ index: 1, function: { arguments: '{"path":' } }] },
      { tool_calls: [{ index: 1, function: { arguments: '"b.ts"}' } }] },
      {},
    ]);
    expect(chunks(all).at(-1)!.choices[0]!.finish_reason).toBe('tool_calls');
  });

  it('streams thinking as reasoning_content and ignores signature deltas', () => {
    const all = run(new AnthropicStreamToChat({ model: 'm', includeUsage: false }), [
      messageStart(),
      { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Let me think' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: ' hard.' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'EqQBCkgIARABGAIiQ' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Answer.' } },
      { type: 'content_block_stop', index: 1 },
      messageDelta('max_tokens'),
      { type: 'message_stop' },
    ]);
    expect(deltas(all)).toEqual([
      { role: 'assistant', content: '' },
      { reasoning_content: 'Let me think' },
      { reasoning_content: ' hard.' },
      { content: 'Answer.' },
      {},
    ]);
    expect(chunks(all).at(-1)!.choices[0]!.finish_reason).toBe('length');
  });

  it('adds a usage chunk with no choices before [DONE] when the client asked for usage', () => {
    const translator = new AnthropicStreamToChat({ model: 'm', includeUsage: true });
    const all = run(translator, textEvents);
    expect(all.at(-1)).toBe('[DONE]');
    const usageChunk = all.at(-2) as ChatCompletionChunk;
    expect(usageChunk.choices).toEqual([]);
    expect(usageChunk.id).toBe('chatcmpl-01XYZ');
    expect(usageChunk.usage).toEqual({
      prompt_tokens: 25,
      completion_tokens: 15,
      total_tokens: 40,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0 },
    });
    expect(chunks(all).filter((c) => c.usage)).toHaveLength(1);
  });

  it('sends no usage chunk when the client did not ask for usage', () => {
    const all = run(new AnthropicStreamToChat({ model: 'm', includeUsage: false }), textEvents);
    expect(chunks(all).some((c) => c.usage || c.choices.length === 0)).toBe(false);
  });

  it('ends once: a second end() writes nothing', () => {
    const translator = new AnthropicStreamToChat({ model: 'm', includeUsage: true });
    textEvents.forEach((event) => translator.push(event));
    expect(frames(translator.end())).toHaveLength(2);
    expect(translator.end()).toBe('');
  });

  describe('usage', () => {
    const cachedStart = messageStart({
      input_tokens: 100,
      cache_read_input_tokens: 50,
      cache_creation_input_tokens: 10,
      output_tokens: 1,
    });

    it('counts cache reads and writes into prompt_tokens once (100 + 50 + 10 = 160, cached 50)', () => {
      const translator = new AnthropicStreamToChat({ model: 'm', includeUsage: true });
      const all = run(translator, [
        cachedStart,
        messageDelta('end_turn', { output_tokens: 20 }),
        { type: 'message_stop' },
      ]);
      expect((all.at(-2) as ChatCompletionChunk).usage).toMatchObject({
        prompt_tokens: 160,
        completion_tokens: 20,
        total_tokens: 180,
        prompt_tokens_details: { cached_tokens: 50 },
      });
    });

    it('never double counts when message_delta repeats the cache counts', () => {
      const translator = new AnthropicStreamToChat({ model: 'm', includeUsage: true });
      run(translator, [
        cachedStart,
        messageDelta('end_turn', {
          input_tokens: 100,
          cache_read_input_tokens: 50,
          cache_creation_input_tokens: 10,
          output_tokens: 20,
        }),
        { type: 'message_stop' },
      ]);
      expect(translator.usage()).toEqual({
        inputTokens: 160,
        outputTokens: 20,
        cachedTokens: 50,
        cacheCreationInputTokens: 10,
        reasoningTokens: 0,
      });
    });

    it('lets counts in message_delta replace those of message_start', () => {
      const translator = new AnthropicStreamToChat({ model: 'm', includeUsage: false });
      translator.push(cachedStart);
      translator.push(messageDelta('end_turn', { input_tokens: 120, cache_read_input_tokens: 60, output_tokens: 30 }));
      expect(translator.usage()).toMatchObject({ inputTokens: 190, cachedTokens: 60, cacheCreationInputTokens: 10 });
    });

    it('reports usage only once a message_delta carried it', () => {
      const translator = new AnthropicStreamToChat({ model: 'm', includeUsage: false });
      translator.push(cachedStart);
      expect(translator.reportedUsage()).toBe(false);
      expect(translator.usage()).toMatchObject({ inputTokens: 160, outputTokens: 1 });
      translator.push(messageDelta('end_turn', { output_tokens: 5 }));
      expect(translator.reportedUsage()).toBe(true);
      expect(translator.usage().outputTokens).toBe(5);
    });
  });

  it('ignores unknown event types, unknown delta types and unknown fields', () => {
    const translator = new AnthropicStreamToChat({ model: 'm', includeUsage: false });
    const noise = [
      { type: 'message_start', message: { ...(messageStart() as { message: object }).message, container: null } },
      { type: 'future_event', payload: 1 },
      { type: 'content_block_start', index: 0, content_block: { type: 'server_tool_use', id: 's', name: 'web' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'citations_delta', citation: {} } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '', citations: [] } },
      { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'ok', extra: true } },
    ] as unknown as AnthropicStreamEvent[];
    const all = noise.flatMap((event) => frames(translator.push(event)));
    expect(deltas(all)).toEqual([{ role: 'assistant', content: '' }, { content: 'ok' }]);
  });

  it('turns an upstream error event into a chat-completions error frame', () => {
    const translator = new AnthropicStreamToChat({ model: 'm', includeUsage: false });
    translator.push(messageStart());
    const written = frames(
      translator.push({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }),
    );
    expect(written).toEqual([{ error: { message: 'Overloaded', type: 'overloaded_error', param: null, code: null } }]);
  });
});
