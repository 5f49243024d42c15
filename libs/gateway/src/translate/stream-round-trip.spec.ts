import { type AnthropicStreamEvent, type ChatCompletionChunk } from '../wire';
import { AnthropicStreamToChat } from './anthropic-stream-to-chat';
import { ChatStreamToAnthropic } from './chat-stream-to-anthropic';

type Delta = ChatCompletionChunk['choices'][number]['delta'];

function parseAnthropic(sse: string): AnthropicStreamEvent[] {
  return sse
    .split('\n\n')
    .filter((frame) => frame !== '')
    .map((frame) => JSON.parse(frame.split('\n')[1]!.slice('data: '.length)) as AnthropicStreamEvent);
}

function parseChat(sse: string): ChatCompletionChunk[] {
  return sse
    .split('\n\n')
    .filter((frame) => frame !== '' && frame !== 'data: [DONE]')
    .map((frame) => JSON.parse(frame.slice('data: '.length)) as ChatCompletionChunk);
}

describe('a stream translated chat -> anthropic -> chat', () => {
  it('gives back the same reasoning, text, tool calls, finish reason and usage', () => {
    const upstream: Delta[] = [
      { role: 'assistant', reasoning_content: 'Two files needed.' },
      { content: 'Reading ' },
      { content: 'both.' },
      { tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'read', arguments: '{"path"' } }] },
      { tool_calls: [{ index: 0, function: { arguments: ':"a.ts"}' } }] },
      { tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'read', arguments: '{}' } }] },
    ];
    const toAnthropic = new ChatStreamToAnthropic({ model: 'claude-client', estimatedInputTokens: 90 });
    let anthropicSse = '';
    for (const delta of upstream) {
      anthropicSse += toAnthropic.push({
        id: 'chatcmpl-1',
        object: 'chat.completion.chunk',
        created: 1,
        model: 'gpt',
        choices: [{ index: 0, delta, finish_reason: null }],
      });
    }
    anthropicSse += toAnthropic.push({
      id: 'chatcmpl-1',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'gpt',
      choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }],
    });
    anthropicSse += toAnthropic.push({
      id: 'chatcmpl-1',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'gpt',
      choices: [],
      usage: {
        prompt_tokens: 100,
        completion_tokens: 30,
        total_tokens: 130,
        prompt_tokens_details: { cached_tokens: 40 },
      },
    });
    anthropicSse += toAnthropic.end();

    const toChat = new AnthropicStreamToChat({ model: 'gpt-client', includeUsage: true });
    let chatSse = '';
    for (const event of parseAnthropic(anthropicSse)) chatSse += toChat.push(event);
    chatSse += toChat.end();
    const chunks = parseChat(chatSse);

    const deltas = chunks.flatMap((c) => c.choices.map((choice) => choice.delta));
    expect(deltas.map((d) => d.reasoning_content ?? '').join('')).toBe('Two files needed.');
    expect(deltas.map((d) => d.content ?? '').join('')).toBe('Reading both.');
    const calls = deltas.flatMap((d) => d.tool_calls ?? []);
    const argumentsOf = (index: number) =>
      calls
        .filter((call) => call.index === index)
        .map((call) => call.function?.arguments ?? '')
        .join('');
    expect(calls.filter((call) => call.id).map((call) => [call.index, call.id, call.function?.name])).toEqual([
      [0, 'call_a', 'read'],
      [1, 'call_b', 'read'],
    ]);
    expect(JSON.parse(argumentsOf(0))).toEqual({ path: 'a.ts' });
    expect(JSON.parse(argumentsOf(1))).toEqual({});
    expect(chunks.flatMap((c) => c.choices).at(-1)!.finish_reason).toBe('tool_calls');
    expect(chunks.at(-1)!.usage).toMatchObject({
      prompt_tokens: 100,
      completion_tokens: 30,
      prompt_tokens_details: { cached_tokens: 40 },
    });
    expect(toChat.usage()).toEqual(toAnthropic.usage());
  });
});
