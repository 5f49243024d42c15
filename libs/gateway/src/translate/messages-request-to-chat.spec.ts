import { type AnthropicMessageParam, type AnthropicMessagesRequest } from '../wire';
import { messagesRequestToChat } from './messages-request-to-chat';
import { TranslationError } from './translation-error';

const options = { maxTokensField: 'max_completion_tokens' } as const;

function translate(messages: AnthropicMessageParam[], extra: Partial<AnthropicMessagesRequest> = {}) {
  return messagesRequestToChat(
    { model: 'claude-client', max_tokens: 1024, messages, ...extra },
    'gpt-upstream',
    options,
  );
}

function translationError(action: () => unknown): TranslationError {
  try {
    action();
  } catch (error) {
    if (error instanceof TranslationError) return error;
    throw error;
  }
  throw new Error('nothing was thrown');
}

describe('messagesRequestToChat', () => {
  it('addresses the upstream model and keeps string content as it is', () => {
    expect(translate([{ role: 'user', content: 'Hello' }])).toEqual({
      model: 'gpt-upstream',
      messages: [{ role: 'user', content: 'Hello' }],
      max_completion_tokens: 1024,
    });
  });

  describe('system', () => {
    it('turns a system string into one leading system message', () => {
      const translated = translate([{ role: 'user', content: 'Hi' }], { system: 'Be brief.' });
      expect(translated.messages[0]).toEqual({ role: 'system', content: 'Be brief.' });
    });

    it('joins system text blocks into one leading system message, dropping cache_control', () => {
      const translated = translate([{ role: 'user', content: 'Hi' }], {
        system: [
          { type: 'text', text: 'You are an agent.' },
          { type: 'text', text: 'Use tools.', cache_control: { type: 'ephemeral' } },
        ],
      });
      expect(translated.messages).toEqual([
        { role: 'system', content: 'You are an agent.\n\nUse tools.' },
        { role: 'user', content: 'Hi' },
      ]);
    });
  });

  describe('user content and tool results', () => {
    it('emits one tool message per tool_result, before a user message with the remaining blocks', () => {
      const translated = translate([
        { role: 'user', content: 'read both' },
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 'toolu_a', name: 'read', input: { path: 'a' } },
            { type: 'tool_use', id: 'toolu_b', name: 'read', input: { path: 'b' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_a', content: 'A' },
            { type: 'tool_result', tool_use_id: 'toolu_b', content: [{ type: 'text', text: 'B' }] },
            { type: 'text', text: 'now compare them', cache_control: { type: 'ephemeral' } },
          ],
        },
      ]);
      expect(translated.messages.slice(2)).toEqual([
        { role: 'tool', tool_call_id: 'toolu_a', content: 'A' },
        { role: 'tool', tool_call_id: 'toolu_b', content: 'B' },
        { role: 'user', content: 'now compare them' },
      ]);
    });

    it('emits only tool messages when a user turn holds nothing but tool results', () => {
      const translated = translate([
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_a', name: 'run', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_a' }] },
      ]);
      expect(translated.messages.slice(2)).toEqual([{ role: 'tool', tool_call_id: 'toolu_a', content: '' }]);
    });

    it('prefixes the content of a failed tool result with "Error: "', () => {
      const translated = translate([
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_a', name: 'run', input: {} }] },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'toolu_a', content: 'not found', is_error: true }],
        },
      ]);
      expect(translated.messages[2]).toEqual({ role: 'tool', tool_call_id: 'toolu_a', content: 'Error: not found' });
    });

    it('turns base64 images into data URLs and url images into URLs', () => {
      const translated = translate([
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Compare' },
            { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: '/9j/4AAQ' } },
            { type: 'image', source: { type: 'url', url: 'https://example.com/b.png' } },
          ],
        },
      ]);
      expect(translated.messages[0]).toEqual({
        role: 'user',
        content: [
          { type: 'text', text: 'Compare' },
          { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/4AAQ' } },
          { type: 'image_url', image_url: { url: 'https://example.com/b.png' } },
        ],
      });
    });

    it('moves images a tool returned into the user message after the tool messages', () => {
      const translated = translate([
        { role: 'user', content: 'screenshot' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_a', name: 'shot', input: {} }] },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 'toolu_a',
              content: [
                { type: 'text', text: 'captured' },
                { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBOR' } },
              ],
            },
          ],
        },
      ]);
      expect(translated.messages.slice(2)).toEqual([
        { role: 'tool', tool_call_id: 'toolu_a', content: 'captured' },
        { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,iVBOR' } }] },
      ]);
    });

    it('refuses content blocks it cannot carry, such as documents', () => {
      const error = translationError(() =>
        translate([
          {
            role: 'user',
            content: [{ type: 'document', source: { type: 'text', data: 'x' } } as never],
          },
        ]),
      );
      expect(error.param).toBe('messages[0].content[0]');
    });
  });

  describe('assistant content', () => {
    it('joins text into content and turns tool_use into tool_calls, dropping thinking', () => {
      const translated = translate([
        { role: 'user', content: 'weather?' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'The user wants weather.', signature: 'sig' },
            { type: 'redacted_thinking', data: 'opaque' },
            { type: 'text', text: 'Checking ' },
            { type: 'text', text: 'now.' },
            { type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Paris', days: 2 } },
          ],
        },
      ]);
      expect(translated.messages[1]).toEqual({
        role: 'assistant',
        content: 'Checking now.',
        tool_calls: [
          { id: 'toolu_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris","days":2}' } },
        ],
      });
    });

    it('sets content to null when the assistant only called tools', () => {
      const translated = translate([
        { role: 'user', content: 'time?' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'clock', input: {} }] },
      ]);
      expect(translated.messages[1]).toEqual({
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'clock', arguments: '{}' } }],
      });
    });

    it('drops an assistant turn that only held thinking', () => {
      const translated = translate([
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: [{ type: 'thinking', thinking: 'hmm', signature: 's' }] },
      ]);
      expect(translated.messages).toEqual([{ role: 'user', content: 'hi' }]);
    });
  });

  describe('sampling and limits', () => {
    it.each(['max_tokens', 'max_completion_tokens'] as const)('writes max_tokens into the %s field', (field) => {
      const translated = messagesRequestToChat(
        { model: 'c', max_tokens: 321, messages: [{ role: 'user', content: 'hi' }] },
        'gpt',
        { maxTokensField: field },
      );
      expect(translated[field]).toBe(321);
      expect(translated).not.toHaveProperty(field === 'max_tokens' ? 'max_completion_tokens' : 'max_tokens');
    });

    it('copies stop_sequences, temperature, top_p and metadata.user_id; drops top_k and thinking', () => {
      const translated = translate([{ role: 'user', content: 'hi' }], {
        stop_sequences: ['END'],
        temperature: 0.2,
        top_p: 0.8,
        top_k: 40,
        metadata: { user_id: 'u-7' },
        thinking: { type: 'enabled', budget_tokens: 2048 },
      });
      expect(translated).toEqual({
        model: 'gpt-upstream',
        messages: [{ role: 'user', content: 'hi' }],
        max_completion_tokens: 1024,
        stop: ['END'],
        temperature: 0.2,
        top_p: 0.8,
        user: 'u-7',
      });
    });

    it('asks for the usage chunk when streaming', () => {
      const translated = translate([{ role: 'user', content: 'hi' }], { stream: true });
      expect(translated).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    });
  });

  describe('tools and tool_choice', () => {
    const tools: AnthropicMessagesRequest['tools'] = [
      {
        name: 'weather',
        description: 'Current weather',
        input_schema: { type: 'object', properties: { city: { type: 'string' } } },
        cache_control: { type: 'ephemeral' },
      },
    ];

    it('turns tools into function tools with input_schema as parameters', () => {
      expect(translate([{ role: 'user', content: 'hi' }], { tools }).tools).toEqual([
        {
          type: 'function',
          function: {
            name: 'weather',
            description: 'Current weather',
            parameters: { type: 'object', properties: { city: { type: 'string' } } },
          },
        },
      ]);
    });

    it('accepts a tool of type custom as a client tool', () => {
      const translated = translate([{ role: 'user', content: 'hi' }], {
        tools: [{ type: 'custom', name: 'f', input_schema: { type: 'object' } }],
      });
      expect(translated.tools).toEqual([{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }]);
    });

    it('refuses a server tool', () => {
      const error = translationError(() =>
        translate([{ role: 'user', content: 'hi' }], {
          tools: [...tools!, { type: 'web_search_20250305', name: 'web_search', input_schema: {} }],
        }),
      );
      expect(error.param).toBe('tools[1]');
    });

    it.each([
      [{ type: 'auto' }, 'auto'],
      [{ type: 'any' }, 'required'],
      [{ type: 'none' }, 'none'],
      [
        { type: 'tool', name: 'weather' },
        { type: 'function', function: { name: 'weather' } },
      ],
    ] as const)('maps tool_choice %j to %j', (toolChoice, expected) => {
      const translated = translate([{ role: 'user', content: 'hi' }], { tools, tool_choice: toolChoice });
      expect(translated.tool_choice).toEqual(expected);
      expect(translated).not.toHaveProperty('parallel_tool_calls');
    });

    it('maps disable_parallel_tool_use: true to parallel_tool_calls: false', () => {
      const translated = translate([{ role: 'user', content: 'hi' }], {
        tools,
        tool_choice: { type: 'any', disable_parallel_tool_use: true },
      });
      expect(translated).toMatchObject({ tool_choice: 'required', parallel_tool_calls: false });
    });
  });

  it('refuses empty messages', () => {
    expect(translationError(() => translate([])).param).toBe('messages');
  });
});
