import { type AnthropicStreamEvent, type ChatCompletionChunk } from '../wire';
import { ChatStreamToAnthropic } from './chat-stream-to-anthropic';

type Delta = ChatCompletionChunk['choices'][number]['delta'];
type FinishReason = ChatCompletionChunk['choices'][number]['finish_reason'];

/** Splits SSE text into events, checking that each `event:` line names the type in its data. */
function events(sse: string): AnthropicStreamEvent[] {
  if (sse === '') return [];
  expect(sse.endsWith('\n\n')).toBe(true);
  return sse
    .slice(0, -2)
    .split('\n\n')
    .map((frame) => {
      const [eventLine, dataLine, ...rest] = frame.split('\n');
      expect(rest).toEqual([]);
      expect(eventLine!.startsWith('event: ')).toBe(true);
      expect(dataLine!.startsWith('data: ')).toBe(true);
      const event = JSON.parse(dataLine!.slice('data: '.length)) as AnthropicStreamEvent;
      expect(event.type).toBe(eventLine!.slice('event: '.length));
      return event;
    });
}

function chunk(delta: Delta, finishReason: FinishReason = null): ChatCompletionChunk {
  return {
    id: 'chatcmpl-up',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: 'gpt-upstream',
    choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
  };
}

function usageChunk(usage: ChatCompletionChunk['usage']): ChatCompletionChunk {
  return { id: 'chatcmpl-up', object: 'chat.completion.chunk', created: 1, model: 'gpt-upstream', choices: [], usage };
}

function translator(estimatedInputTokens = 42) {
  return new ChatStreamToAnthropic({ model: 'claude-client', estimatedInputTokens, messageId: 'msg_fixed' });
}

function run(stream: ChatStreamToAnthropic, upstream: ChatCompletionChunk[]): AnthropicStreamEvent[] {
  return [...upstream.flatMap((c) => events(stream.push(c))), ...events(stream.end())];
}

/** One line per event, enough to check the order and where each delta went. */
function outline(all: AnthropicStreamEvent[]): string[] {
  return all.map((event) => {
    switch (event.type) {
      case 'content_block_start':
        return `start ${event.index} ${event.content_block.type}`;
      case 'content_block_delta': {
        const delta = event.delta;
        const value =
          delta.type === 'text_delta'
            ? delta.text
            : delta.type === 'thinking_delta'
              ? delta.thinking
              : delta.type === 'input_json_delta'
                ? delta.partial_json
                : delta.signature;
        return `delta ${event.index} ${delta.type} ${value}`;
      }
      case 'content_block_stop':
        return `stop ${event.index}`;
      case 'message_delta':
        return `message_delta ${event.delta.stop_reason}`;
      default:
        return event.type;
    }
  });
}

describe('ChatStreamToAnthropic', () => {
  it('opens with message_start carrying the id, the client’s model and the estimated input tokens', () => {
    const [start] = events(translator(42).push(chunk({ role: 'assistant', content: '' })));
    expect(start).toEqual({
      type: 'message_start',
      message: {
        id: 'msg_fixed',
        type: 'message',
        role: 'assistant',
        model: 'claude-client',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 42, output_tokens: 0 },
      },
    });
  });

  it('makes a msg_ id of 24 base62 characters when none is given', () => {
    const stream = new ChatStreamToAnthropic({ model: 'm', estimatedInputTokens: 1 });
    const [start] = events(stream.push(chunk({ role: 'assistant' })));
    expect((start as Extract<AnthropicStreamEvent, { type: 'message_start' }>).message.id).toMatch(
      /^msg_[0-9A-Za-z]{24}$/,
    );
  });

  it('streams text-only output in Anthropic’s event order', () => {
    const all = run(translator(), [
      chunk({ role: 'assistant', content: '' }),
      chunk({ content: 'Hello' }),
      chunk({ content: ', world' }),
      chunk({}, 'stop'),
    ]);
    expect(outline(all)).toEqual([
      'message_start',
      'start 0 text',
      'delta 0 text_delta Hello',
      'delta 0 text_delta , world',
      'stop 0',
      'message_delta end_turn',
      'message_stop',
    ]);
    expect(all[1]).toEqual({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
  });

  it('streams text then two tool calls whose arguments arrive in pieces, each call in its own block', () => {
    const all = run(translator(), [
      chunk({ role: 'assistant', content: 'Reading both.' }),
      chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'read', arguments: '' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"pa' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: 'th":"a.ts"}' } }] }),
      chunk({
        tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'read', arguments: '{"path":' } }],
      }),
      chunk({ tool_calls: [{ index: 1, function: { arguments: '"b.ts"}' } }] }),
      chunk({}, 'tool_calls'),
    ]);
    expect(outline(all)).toEqual([
      'message_start',
      'start 0 text',
      'delta 0 text_delta Reading both.',
      'stop 0',
      'start 1 tool_use',
      'delta 1 input_json_delta {"pa',
      'delta 1 input_json_delta th":"a.ts"}',
      'stop 1',
      'start 2 tool_use',
      'delta 2 input_json_delta {"path":',
      'delta 2 input_json_delta "b.ts"}',
      'stop 2',
      'message_delta tool_use',
      'message_stop',
    ]);
    expect(all[4]).toEqual({
      type: 'content_block_start',
      index: 1,
      content_block: { type: 'tool_use', id: 'call_a', name: 'read', input: {} },
    });
    expect(all[8]).toMatchObject({ content_block: { type: 'tool_use', id: 'call_b', name: 'read', input: {} } });
  });

  it('keeps one block per call when an upstream repeats the id on every delta', () => {
    const all = run(translator(), [
      chunk({ tool_calls: [{ index: 0, id: 'call_a', function: { name: 'read', arguments: '{"path"' } }] }),
      chunk({ tool_calls: [{ index: 0, id: 'call_a', function: { arguments: ':"a"}' } }] }),
      chunk({}, 'tool_calls'),
    ]);
    expect(outline(all)).toEqual([
      'message_start',
      'start 0 tool_use',
      'delta 0 input_json_delta {"path"',
      'delta 0 input_json_delta :"a"}',
      'stop 0',
      'message_delta tool_use',
      'message_stop',
    ]);
  });

  it('opens a new block when an upstream reuses index 0 with a new id', () => {
    const all = run(translator(), [
      chunk({ tool_calls: [{ index: 0, id: 'call_a', function: { name: 'a', arguments: '{}' } }] }),
      chunk({ tool_calls: [{ index: 0, id: 'call_b', function: { name: 'b', arguments: '{}' } }] }),
    ]);
    expect(outline(all).filter((line) => line.startsWith('start'))).toEqual(['start 0 tool_use', 'start 1 tool_use']);
  });

  it('streams reasoning as a thinking block before the text block', () => {
    const all = run(translator(), [
      chunk({ role: 'assistant', reasoning_content: 'Let me think' }),
      chunk({ reasoning_content: ' hard.' }),
      chunk({ content: 'Answer.' }),
      chunk({}, 'length'),
    ]);
    expect(outline(all)).toEqual([
      'message_start',
      'start 0 thinking',
      'delta 0 thinking_delta Let me think',
      'delta 0 thinking_delta  hard.',
      'stop 0',
      'start 1 text',
      'delta 1 text_delta Answer.',
      'stop 1',
      'message_delta max_tokens',
      'message_stop',
    ]);
    expect(all[1]).toEqual({
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'thinking', thinking: '', signature: '' },
    });
  });

  it.each([
    ['stop', 'end_turn'],
    ['length', 'max_tokens'],
    ['tool_calls', 'tool_use'],
    ['function_call', 'tool_use'],
    ['content_filter', 'refusal'],
  ] as const)('maps the finish_reason %s to the stop_reason %s', (finishReason, stopReason) => {
    const all = run(translator(), [chunk({ content: 'x' }, finishReason)]);
    expect(all.find((e) => e.type === 'message_delta')).toMatchObject({ delta: { stop_reason: stopReason } });
  });

  it('reports tool_use when the upstream finished a tool-calling turn with stop', () => {
    const all = run(translator(), [
      chunk({ tool_calls: [{ index: 0, id: 'c', function: { name: 'f', arguments: '{}' } }] }),
      chunk({}, 'stop'),
    ]);
    expect(all.find((e) => e.type === 'message_delta')).toMatchObject({ delta: { stop_reason: 'tool_use' } });
  });

  describe('usage', () => {
    it('closes with the reported usage, cached tokens apart from the uncached input', () => {
      const stream = translator(300);
      const all = run(stream, [
        chunk({ content: 'Hi' }, 'stop'),
        usageChunk({
          prompt_tokens: 160,
          completion_tokens: 12,
          total_tokens: 172,
          prompt_tokens_details: { cached_tokens: 50 },
          completion_tokens_details: { reasoning_tokens: 4 },
        }),
      ]);
      expect(all.find((e) => e.type === 'message_delta')).toEqual({
        type: 'message_delta',
        delta: { stop_reason: 'end_turn', stop_sequence: null },
        usage: { input_tokens: 110, output_tokens: 12, cache_read_input_tokens: 50, cache_creation_input_tokens: 0 },
      });
      expect(stream.reportedUsage()).toBe(true);
      expect(stream.usage()).toEqual({
        inputTokens: 160,
        outputTokens: 12,
        cachedTokens: 50,
        cacheCreationInputTokens: 0,
        reasoningTokens: 4,
      });
    });

    it('closes with the estimated input and no output when the upstream reported no usage', () => {
      const stream = translator(300);
      const all = run(stream, [chunk({ content: 'Hi' }, 'stop')]);
      expect(all.find((e) => e.type === 'message_delta')).toMatchObject({
        usage: { input_tokens: 300, output_tokens: 0 },
      });
      expect(stream.reportedUsage()).toBe(false);
      expect(stream.usage()).toMatchObject({ inputTokens: 300, outputTokens: 0 });
    });
  });

  it('still opens with message_start when end() comes without any chunk', () => {
    const stream = translator();
    expect(outline(events(stream.end()))).toEqual(['message_start', 'message_delta end_turn', 'message_stop']);
    expect(stream.end()).toBe('');
  });

  it('ignores unknown fields and choices other than the first', () => {
    const odd = {
      ...chunk({ content: 'Hi', audio: null, annotations: [] } as Delta),
      service_tier: 'default',
      obfuscation: 'abc',
      choices: [
        { index: 0, delta: { content: 'Hi', annotations: [] }, finish_reason: null, logprobs: null, extra: 1 },
        { index: 1, delta: { content: 'other answer' }, finish_reason: null },
      ],
    } as unknown as ChatCompletionChunk;
    expect(outline(run(translator(), [odd]))).toEqual([
      'message_start',
      'start 0 text',
      'delta 0 text_delta Hi',
      'stop 0',
      'message_delta end_turn',
      'message_stop',
    ]);
  });

  it('turns an upstream error chunk into an Anthropic error event', () => {
    const stream = translator();
    stream.push(chunk({ content: 'Hi' }));
    const errorChunk = { error: { message: 'Rate limit reached', type: 'rate_limit_exceeded' } };
    expect(events(stream.push(errorChunk as unknown as ChatCompletionChunk))).toEqual([
      { type: 'error', error: { type: 'api_error', message: 'Rate limit reached' } },
    ]);
  });
});
