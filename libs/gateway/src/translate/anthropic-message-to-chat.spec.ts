import { type AnthropicMessage } from '../wire';
import { anthropicMessageToChat } from './anthropic-message-to-chat';
import { type ChatCompletionMessage } from './wire-extensions';

function message(overrides: Partial<AnthropicMessage> = {}): AnthropicMessage {
  return {
    id: 'msg_01ABC',
    type: 'message',
    role: 'assistant',
    model: 'claude-upstream',
    content: [{ type: 'text', text: 'Hello' }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 12, output_tokens: 3 },
    ...overrides,
  };
}

describe('anthropicMessageToChat', () => {
  it('answers as the model the client asked for, with a chatcmpl- id made from the message id', () => {
    const completion = anthropicMessageToChat(message(), 'client-model', { created: 1_700_000_000 });
    expect(completion).toEqual({
      id: 'chatcmpl-01ABC',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'client-model',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hello' }, finish_reason: 'stop', logprobs: null }],
      usage: {
        prompt_tokens: 12,
        completion_tokens: 3,
        total_tokens: 15,
        prompt_tokens_details: { cached_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0 },
      },
    });
  });

  it('sets created to now when none is given', () => {
    const before = Math.floor(Date.now() / 1000);
    const { created } = anthropicMessageToChat(message(), 'm');
    expect(created).toBeGreaterThanOrEqual(before);
    expect(created).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
  });

  it('joins text blocks, turns tool_use into tool_calls, and puts thinking in reasoning_content', () => {
    const completion = anthropicMessageToChat(
      message({
        content: [
          { type: 'thinking', thinking: 'Need the weather.', signature: 'sig' },
          { type: 'redacted_thinking', data: 'opaque' },
          { type: 'text', text: 'Checking ' },
          { type: 'text', text: 'Paris.' },
          { type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Paris' } },
        ],
        stop_reason: 'tool_use',
      }),
      'client-model',
    );
    const reply: ChatCompletionMessage = completion.choices[0]!.message;
    expect(reply).toEqual({
      role: 'assistant',
      content: 'Checking Paris.',
      reasoning_content: 'Need the weather.',
      tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } }],
    });
    expect(completion.choices[0]!.finish_reason).toBe('tool_calls');
  });

  it('sets content to null when there is no text', () => {
    const completion = anthropicMessageToChat(
      message({ content: [{ type: 'tool_use', id: 'toolu_1', name: 'clock', input: {} }], stop_reason: 'tool_use' }),
      'm',
    );
    expect(completion.choices[0]!.message.content).toBeNull();
  });

  it('counts cache reads and writes into prompt_tokens once, and reports the reads as cached_tokens', () => {
    const completion = anthropicMessageToChat(
      message({
        usage: { input_tokens: 100, cache_read_input_tokens: 50, cache_creation_input_tokens: 10, output_tokens: 7 },
      }),
      'm',
    );
    expect(completion.usage).toEqual({
      prompt_tokens: 160,
      completion_tokens: 7,
      total_tokens: 167,
      prompt_tokens_details: { cached_tokens: 50 },
      completion_tokens_details: { reasoning_tokens: 0 },
    });
  });
});
