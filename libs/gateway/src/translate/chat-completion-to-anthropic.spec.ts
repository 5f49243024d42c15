import { type ChatCompletion } from '../wire';
import { chatCompletionToAnthropic } from './chat-completion-to-anthropic';
import { type ChatCompletionMessage } from './wire-extensions';

function completion(
  reply: Partial<ChatCompletionMessage>,
  finishReason: ChatCompletion['choices'][number]['finish_reason'] = 'stop',
  usage: ChatCompletion['usage'] = { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25 },
): ChatCompletion {
  const message: ChatCompletionMessage = { role: 'assistant', content: null, ...reply };
  return {
    id: 'chatcmpl-XYZ',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'gpt-upstream',
    choices: [{ index: 0, message, finish_reason: finishReason }],
    usage,
  };
}

describe('chatCompletionToAnthropic', () => {
  it('answers as the model the client asked for, with a msg_ id made from the completion id', () => {
    expect(chatCompletionToAnthropic(completion({ content: 'Hello' }), 'claude-client')).toEqual({
      id: 'msg_XYZ',
      type: 'message',
      role: 'assistant',
      model: 'claude-client',
      content: [{ type: 'text', text: 'Hello' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 20, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    });
  });

  it('puts reasoning first as an unsigned thinking block, then text, then tool_use blocks', () => {
    const message = chatCompletionToAnthropic(
      completion(
        {
          content: 'Checking.',
          reasoning_content: 'Need two files.',
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'read', arguments: '{"path":"a"}' } },
            { id: 'call_2', type: 'function', function: { name: 'clock', arguments: '' } },
          ],
        },
        'tool_calls',
      ),
      'm',
    );
    expect(message.content).toEqual([
      { type: 'thinking', thinking: 'Need two files.', signature: '' },
      { type: 'text', text: 'Checking.' },
      { type: 'tool_use', id: 'call_1', name: 'read', input: { path: 'a' } },
      { type: 'tool_use', id: 'call_2', name: 'clock', input: {} },
    ]);
    expect(message.stop_reason).toBe('tool_use');
  });

  it('leaves out an empty text block', () => {
    const message = chatCompletionToAnthropic(
      completion(
        { content: '', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }] },
        'tool_calls',
      ),
      'm',
    );
    expect(message.content).toEqual([{ type: 'tool_use', id: 'c', name: 'f', input: {} }]);
  });

  it.each(['{"path":', '[1]', '"x"'])(
    'keeps arguments %s that are not a JSON object visible as _unparsed_arguments',
    (args) => {
      const message = chatCompletionToAnthropic(
        completion(
          { tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: args } }] },
          'tool_calls',
        ),
        'm',
      );
      expect(message.content).toEqual([{ type: 'tool_use', id: 'c', name: 'f', input: { _unparsed_arguments: args } }]);
    },
  );

  it('reports tool_use when an upstream finishes a tool-calling turn with stop', () => {
    const message = chatCompletionToAnthropic(
      completion({ tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }] }, 'stop'),
      'm',
    );
    expect(message.stop_reason).toBe('tool_use');
  });

  it('carries a refusal as text', () => {
    const message = chatCompletionToAnthropic(
      completion({ refusal: 'I cannot help with that.' }, 'content_filter'),
      'm',
    );
    expect(message.content).toEqual([{ type: 'text', text: 'I cannot help with that.' }]);
    expect(message.stop_reason).toBe('refusal');
  });

  it('splits cached tokens out of prompt_tokens so no input token is counted twice', () => {
    const message = chatCompletionToAnthropic(
      completion({ content: 'ok' }, 'stop', {
        prompt_tokens: 160,
        completion_tokens: 9,
        total_tokens: 169,
        prompt_tokens_details: { cached_tokens: 50 },
      }),
      'm',
    );
    expect(message.usage).toEqual({
      input_tokens: 110,
      output_tokens: 9,
      cache_read_input_tokens: 50,
      cache_creation_input_tokens: 0,
    });
  });
});
