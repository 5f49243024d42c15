import { type ChatCompletionRequest, type ChatMessage } from '../wire';
import { chatRequestToAnthropic } from './chat-request-to-anthropic';
import { TranslationError } from './translation-error';

const options = { defaultMaxTokens: 4096 };

function request(messages: ChatMessage[], extra: Partial<ChatCompletionRequest> = {}): ChatCompletionRequest {
  return { model: 'client-model', messages, ...extra };
}

function translate(messages: ChatMessage[], extra: Partial<ChatCompletionRequest> = {}) {
  return chatRequestToAnthropic(request(messages, extra), 'claude-upstream', options);
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

describe('chatRequestToAnthropic', () => {
  it('addresses the upstream model and keeps a plain user string as a string', () => {
    const translated = translate([{ role: 'user', content: 'Hello' }]);
    expect(translated).toEqual({
      model: 'claude-upstream',
      messages: [{ role: 'user', content: 'Hello' }],
      max_tokens: 4096,
    });
  });

  describe('system and developer messages', () => {
    it('moves system and developer messages from anywhere into the system field, in order', () => {
      const translated = translate([
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
        { role: 'developer', content: [{ type: 'text', text: 'Answer in French.' }] },
        { role: 'assistant', content: 'Bonjour' },
        { role: 'system', content: [{ type: 'text', text: 'No emoji.' }] },
        { role: 'user', content: 'Again' },
      ]);
      expect(translated.system).toEqual([
        { type: 'text', text: 'Be brief.' },
        { type: 'text', text: 'Answer in French.' },
        { type: 'text', text: 'No emoji.' },
      ]);
      expect(translated.messages).toEqual([
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: [{ type: 'text', text: 'Bonjour' }] },
        { role: 'user', content: 'Again' },
      ]);
    });

    it('merges the user turns a system message sat between', () => {
      const translated = translate([
        { role: 'user', content: 'one' },
        { role: 'system', content: 'rule' },
        { role: 'user', content: 'two' },
      ]);
      expect(translated.messages).toEqual([
        {
          role: 'user',
          content: [
            { type: 'text', text: 'one' },
            { type: 'text', text: 'two' },
          ],
        },
      ]);
    });

    it('refuses an image in a system message', () => {
      const error = translationError(() =>
        translate([
          { role: 'system', content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] },
          { role: 'user', content: 'Hi' },
        ]),
      );
      expect(error.param).toBe('messages[0].content[0]');
    });

    it('refuses a conversation with only system messages', () => {
      expect(translationError(() => translate([{ role: 'system', content: 'rule' }])).param).toBe('messages');
    });
  });

  describe('user content', () => {
    it('turns text parts into text blocks and data URLs into base64 image blocks', () => {
      const translated = translate([
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'high' } },
          ],
        },
      ]);
      expect(translated.messages[0]!.content).toEqual([
        { type: 'text', text: 'What is this?' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
      ]);
    });

    it('turns an http(s) image URL into a url image block', () => {
      const translated = translate([
        { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } }] },
      ]);
      expect(translated.messages[0]!.content).toEqual([
        { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
      ]);
    });

    it.each(['ftp://example.com/cat.jpg', 'file:///etc/passwd', 'data:image/png,notbase64', 'cat.jpg'])(
      'refuses the image URL %s, neither a base64 data URL nor http(s)',
      (url) => {
        const error = translationError(() =>
          translate([
            {
              role: 'user',
              content: [
                { type: 'text', text: 'see' },
                { type: 'image_url', image_url: { url } },
              ],
            },
          ]),
        );
        expect(error.param).toBe('messages[0].content[1]');
      },
    );

    it('refuses audio parts', () => {
      const error = translationError(() =>
        translate([{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } }] }]),
      );
      expect(error).toBeInstanceOf(TranslationError);
      expect(error.param).toBe('messages[0].content[0]');
    });

    it('refuses part types it does not know', () => {
      const error = translationError(() =>
        translate([{ role: 'user', content: [{ type: 'file', file: { file_id: 'file-1' } }] }]),
      );
      expect(error.param).toBe('messages[0].content[0]');
    });
  });

  describe('assistant content and tool calls', () => {
    it('turns tool calls into tool_use blocks after the text', () => {
      const translated = translate([
        { role: 'user', content: 'Weather in Paris?' },
        {
          role: 'assistant',
          content: 'Let me check.',
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
            { id: 'call_2', type: 'function', function: { name: 'clock', arguments: '' } },
          ],
        },
      ]);
      expect(translated.messages[1]).toEqual({
        role: 'assistant',
        content: [
          { type: 'text', text: 'Let me check.' },
          { type: 'tool_use', id: 'call_1', name: 'weather', input: { city: 'Paris' } },
          { type: 'tool_use', id: 'call_2', name: 'clock', input: {} },
        ],
      });
    });

    it('leaves out the text block when the assistant only called tools', () => {
      const translated = translate([
        { role: 'user', content: 'Time?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'clock', arguments: '{}' } }],
        },
      ]);
      expect(translated.messages[1]!.content).toEqual([{ type: 'tool_use', id: 'call_1', name: 'clock', input: {} }]);
    });

    it.each(['[1,2]', '"text"', '42', '{"unterminated":'])(
      'refuses tool call arguments %s that are not a JSON object',
      (args) => {
        const error = translationError(() =>
          translate([
            { role: 'user', content: 'go' },
            {
              role: 'assistant',
              tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: args } }],
            },
          ]),
        );
        expect(error.param).toBe('messages[1].tool_calls[0].function.arguments');
      },
    );

    it('drops an assistant message with nothing in it', () => {
      const translated = translate([
        { role: 'user', content: 'one' },
        { role: 'assistant', content: '' },
        { role: 'user', content: 'two' },
      ]);
      expect(translated.messages).toHaveLength(1);
      expect(translated.messages[0]!.role).toBe('user');
    });
  });

  describe('tool results and role merging', () => {
    const toolCallTurn: ChatMessage = {
      role: 'assistant',
      tool_calls: [
        { id: 'call_a', type: 'function', function: { name: 'read', arguments: '{"path":"a"}' } },
        { id: 'call_b', type: 'function', function: { name: 'read', arguments: '{"path":"b"}' } },
      ],
    };

    it('groups consecutive tool messages into one user message of tool_result blocks', () => {
      const translated = translate([
        { role: 'user', content: 'read both' },
        toolCallTurn,
        { role: 'tool', tool_call_id: 'call_a', content: 'A' },
        { role: 'tool', tool_call_id: 'call_b', content: [{ type: 'text', text: 'B' }] },
      ]);
      expect(translated.messages).toHaveLength(3);
      expect(translated.messages[2]).toEqual({
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_a', content: 'A' },
          { type: 'tool_result', tool_use_id: 'call_b', content: [{ type: 'text', text: 'B' }] },
        ],
      });
    });

    it('merges a user message that follows tool results into that message, after the tool_result blocks', () => {
      const translated = translate([
        { role: 'user', content: 'read both' },
        toolCallTurn,
        { role: 'tool', tool_call_id: 'call_a', content: 'A' },
        { role: 'tool', tool_call_id: 'call_b', content: 'B' },
        { role: 'user', content: 'now compare them' },
      ]);
      expect(translated.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
      expect(translated.messages[2]!.content).toEqual([
        { type: 'tool_result', tool_use_id: 'call_a', content: 'A' },
        { type: 'tool_result', tool_use_id: 'call_b', content: 'B' },
        { type: 'text', text: 'now compare them' },
      ]);
    });

    it('keeps tool results ahead of user text that came before them', () => {
      const translated = translate([
        { role: 'user', content: 'read a' },
        { role: 'assistant', tool_calls: [toolCallTurn.tool_calls![0]!] },
        { role: 'user', content: 'by the way' },
        { role: 'tool', tool_call_id: 'call_a', content: 'A' },
      ]);
      expect(translated.messages[2]!.content).toEqual([
        { type: 'tool_result', tool_use_id: 'call_a', content: 'A' },
        { type: 'text', text: 'by the way' },
      ]);
    });

    it('merges consecutive assistant messages into one', () => {
      const translated = translate([
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'first' },
        { role: 'assistant', content: 'second' },
      ]);
      expect(translated.messages[1]).toEqual({
        role: 'assistant',
        content: [
          { type: 'text', text: 'first' },
          { type: 'text', text: 'second' },
        ],
      });
    });

    it('refuses a tool message without a tool_call_id', () => {
      const error = translationError(() =>
        translate([{ role: 'user', content: 'hi' }, toolCallTurn, { role: 'tool', content: 'A' }]),
      );
      expect(error.param).toBe('messages[2].tool_call_id');
    });
  });

  describe('sampling and limits', () => {
    it.each([
      [{ max_completion_tokens: 100, max_tokens: 200 }, 100],
      [{ max_tokens: 200 }, 200],
      [{ max_tokens: null }, 4096],
      [{}, 4096],
    ])('takes max_tokens from max_completion_tokens, then max_tokens, then the default (%j)', (extra, expected) => {
      expect(translate([{ role: 'user', content: 'hi' }], extra).max_tokens).toBe(expected);
    });

    it.each([
      ['END', ['END']],
      [
        ['a', 'b'],
        ['a', 'b'],
      ],
    ])('turns stop %j into stop_sequences', (stop, expected) => {
      expect(translate([{ role: 'user', content: 'hi' }], { stop }).stop_sequences).toEqual(expected);
    });

    it('caps temperature at 1, the top of Anthropic’s range', () => {
      expect(translate([{ role: 'user', content: 'hi' }], { temperature: 1.6 }).temperature).toBe(1);
      expect(translate([{ role: 'user', content: 'hi' }], { temperature: 0.3 }).temperature).toBe(0.3);
    });

    it('copies top_p, stream when true, and user as metadata.user_id', () => {
      const translated = translate([{ role: 'user', content: 'hi' }], { top_p: 0.9, stream: true, user: 'u-42' });
      expect(translated).toMatchObject({ top_p: 0.9, stream: true, metadata: { user_id: 'u-42' } });
      expect(translate([{ role: 'user', content: 'hi' }], { stream: false })).not.toHaveProperty('stream');
    });

    it('drops harmless fields that have no counterpart', () => {
      const translated = translate([{ role: 'user', content: 'hi' }], {
        seed: 7,
        logprobs: false,
        presence_penalty: 0.5,
        frequency_penalty: 0.5,
        response_format: { type: 'text' },
        stream_options: { include_usage: true },
        metadata: { tag: 'x' },
        store: true,
        n: 1,
      });
      expect(Object.keys(translated).sort()).toEqual(['max_tokens', 'messages', 'model']);
    });
  });

  describe('tools and tool_choice', () => {
    const tools: ChatCompletionRequest['tools'] = [
      {
        type: 'function',
        function: {
          name: 'weather',
          description: 'Current weather',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          strict: true,
        },
      },
      { type: 'function', function: { name: 'clock' } },
    ];

    it('turns function tools into tools with input_schema, defaulting to an empty object schema', () => {
      expect(translate([{ role: 'user', content: 'hi' }], { tools }).tools).toEqual([
        {
          name: 'weather',
          description: 'Current weather',
          input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
        { name: 'clock', input_schema: { type: 'object', properties: {} } },
      ]);
    });

    it.each([
      ['none', { type: 'none' }],
      ['auto', { type: 'auto' }],
      ['required', { type: 'any' }],
      [
        { type: 'function', function: { name: 'weather' } },
        { type: 'tool', name: 'weather' },
      ],
    ] as const)('maps tool_choice %j to %j', (toolChoice, expected) => {
      expect(translate([{ role: 'user', content: 'hi' }], { tools, tool_choice: toolChoice }).tool_choice).toEqual(
        expected,
      );
    });

    it('maps parallel_tool_calls: false onto the choice as disable_parallel_tool_use', () => {
      const translated = translate([{ role: 'user', content: 'hi' }], {
        tools,
        tool_choice: 'required',
        parallel_tool_calls: false,
      });
      expect(translated.tool_choice).toEqual({ type: 'any', disable_parallel_tool_use: true });
    });

    it('uses an auto choice to carry parallel_tool_calls: false when no choice was given', () => {
      const translated = translate([{ role: 'user', content: 'hi' }], { tools, parallel_tool_calls: false });
      expect(translated.tool_choice).toEqual({ type: 'auto', disable_parallel_tool_use: true });
    });

    it('sets no tool_choice when parallel_tool_calls is true', () => {
      expect(translate([{ role: 'user', content: 'hi' }], { tools, parallel_tool_calls: true })).not.toHaveProperty(
        'tool_choice',
      );
    });
  });

  describe('requests that cannot be translated faithfully', () => {
    it.each([
      [{ n: 2 }, 'n'],
      [{ logprobs: true }, 'logprobs'],
      [{ response_format: { type: 'json_object' } }, 'response_format'],
      [{ modalities: ['text', 'audio'] }, 'audio'],
      [{ logit_bias: { '50256': -100 } }, 'logit_bias'],
      [{ web_search_options: {} }, 'web_search_options'],
      [{ tools: [{ type: 'custom', custom: { name: 'x' } }] }, 'tools[0]'],
    ])('refuses %j', (extra, param) => {
      const error = translationError(() => translate([{ role: 'user', content: 'hi' }], extra as never));
      expect(error).toBeInstanceOf(TranslationError);
      expect(error.param).toBe(param);
    });

    it('refuses empty messages', () => {
      expect(translationError(() => translate([])).param).toBe('messages');
    });
  });
});
