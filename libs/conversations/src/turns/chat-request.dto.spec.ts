import { ApiError, CHAT_TURN_DEFAULTS } from '@fed/contracts';
import { RequestValidationPipe } from '@fed/server';
import { ChatCancelRequestDto, ChatCompletionRequestDto, toChatTurnRequest } from './chat-request.dto';

// The chat request through the application's pipe, as the controller receives it (document 2,
// "Chat request", "Message object", "Limits"): each refusal names the field and carries the spec's code.
describe('chat request DTO', () => {
  const pipe = new RequestValidationPipe();
  const validate = (body: unknown, metatype: new () => object = ChatCompletionRequestDto) =>
    pipe.transform(body, { type: 'body', metatype, data: undefined });
  const body = (extra: Record<string, unknown> = {}) => ({
    model: 'federation-agent',
    messages: [{ role: 'user', content: 'Hello' }],
    stream: true,
    ...extra,
  });
  const withContent = (content: unknown) => body({ messages: [{ role: 'user', content }] });

  async function refusal(input: unknown, metatype?: new () => object): Promise<{ code: string; message: string }> {
    const error = await validate(input, metatype).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(ApiError);
    return { code: (error as ApiError).code, message: (error as ApiError).message };
  }

  const refused: [string, unknown, string, string][] = [
    [
      'model missing',
      { messages: [{ role: 'user', content: 'x' }], stream: true },
      'invalid_request',
      'model is required and must be a string',
    ],
    [
      'stream missing',
      { model: 'm', messages: [{ role: 'user', content: 'x' }] },
      'invalid_request',
      'stream is required and must be true',
    ],
    ['stream false', body({ stream: false }), 'invalid_request', 'stream must be true: only streaming is supported'],
    [
      'conversationId not a UUID',
      body({ conversationId: 'abc' }),
      'invalid_conversation_id',
      'conversationId must be a UUID string',
    ],
    [
      'conversationId null',
      body({ conversationId: null }),
      'invalid_conversation_id',
      'conversationId must be a UUID string',
    ],
    ['messages missing', { model: 'm', stream: true }, 'invalid_request', 'messages must be a non-empty array'],
    ['messages empty', body({ messages: [] }), 'invalid_request', 'messages must be a non-empty array'],
    ['messages not an array', body({ messages: 'hi' }), 'invalid_request', 'messages must be a non-empty array'],
    [
      'a message not an object',
      body({ messages: [{ role: 'user', content: 'x' }, 7] }),
      'invalid_request',
      'messages[1] must be an object',
    ],
    [
      'a message that is an array',
      body({ messages: [[{ role: 'user', content: 'x' }]] }),
      'invalid_request',
      'messages[0] must be an object',
    ],
    [
      'role missing',
      body({ messages: [{ content: 'x' }] }),
      'invalid_request',
      'messages[0].role is required and must be a string',
    ],
    [
      'role unknown',
      body({ messages: [{ role: 'tool', content: 'x' }] }),
      'invalid_request',
      'messages[0].role must be user, assistant or system',
    ],
    ['content missing', body({ messages: [{ role: 'user' }] }), 'invalid_request', 'messages[0].content is required'],
    [
      'content a number',
      withContent(5),
      'invalid_request',
      'messages[0].content must be a string or an array of content parts',
    ],
    ['a part not an object', withContent(['x']), 'invalid_request', 'messages[0].content[0] must be an object'],
    [
      'a part of an unknown type',
      withContent([{ type: 'image' }]),
      'invalid_request',
      'messages[0].content[0].type must be text or input_file',
    ],
    [
      'a text part without text',
      withContent([{ type: 'text', text: 1 }]),
      'invalid_request',
      'messages[0].content[0].text must be a string',
    ],
    [
      'input_file with both references',
      withContent([
        { type: 'text', text: 'x' },
        { type: 'input_file', fileId: '0b6f5bb6-52a4-4b29-8d6b-3f1f3e0f4f10', filepath: '/a' },
      ]),
      'invalid_request',
      'messages[0].content[1] must give exactly one of fileId and filepath',
    ],
    [
      'input_file with a bad fileId',
      withContent([{ type: 'input_file', fileId: 'x' }]),
      'invalid_request',
      'messages[0].content[0].fileId must be a UUID',
    ],
    [
      'input_file with an empty filepath',
      withContent([{ type: 'input_file', filepath: '' }]),
      'invalid_request',
      'messages[0].content[0].filepath must be a non-empty string of at most 1024 characters',
    ],
    [
      'more than 20 input_file parts',
      withContent(Array.from({ length: 21 }, () => ({ type: 'input_file', filepath: '/a' }))),
      'invalid_request',
      'at most 20 input_file parts are allowed per request',
    ],
    [
      'no user message',
      body({ messages: [{ role: 'assistant', content: 'x' }] }),
      'invalid_request',
      'messages must contain a user message',
    ],
    [
      'text over 1 MB',
      withContent('é'.repeat(512 * 1024 + 1)),
      'invalid_request',
      'the message text is larger than 1 MB (UTF-8)',
    ],
    [
      'text with NUL',
      withContent('a\u0000b'),
      'invalid_request',
      'the message text contains NUL or unpaired surrogate characters',
    ],
    [
      'an empty user message',
      withContent([{ type: 'text', text: '  ' }]),
      'invalid_request',
      'the user message is empty',
    ],
    ['skillIds not an array', body({ skillIds: 'a' }), 'invalid_parameter', 'skillIds must be an array of strings'],
    [
      'skillIds with 11 entries',
      body({ skillIds: Array.from({ length: 11 }, (_, i) => `s${i}`) }),
      'invalid_parameter',
      'skillIds may hold at most 10 entries',
    ],
    [
      'a skill id empty',
      body({ skillIds: ['a', ''] }),
      'invalid_parameter',
      'skillIds must be an array of non-empty strings',
    ],
    [
      'agentLevel unknown',
      body({ agentLevel: 'max' }),
      'invalid_parameter',
      'agentLevel must be one of default, high_performance',
    ],
    ['agentMode not a boolean', body({ agentMode: 'yes' }), 'invalid_parameter', 'agentMode must be a boolean'],
    ['privateMode null', body({ privateMode: null }), 'invalid_parameter', 'privateMode must be a boolean'],
    [
      'reportMode unknown',
      body({ reportMode: 'maybe' }),
      'invalid_parameter',
      'reportMode must be one of with, without',
    ],
    [
      'outputFormat unknown',
      body({ outputFormat: 'html' }),
      'invalid_parameter',
      'outputFormat must be one of plain, markdown',
    ],
    [
      'personaKey too long',
      body({ personaKey: 'p'.repeat(201) }),
      'invalid_parameter',
      'personaKey must be a non-empty string of at most 200 characters',
    ],
    [
      'playbookId with NUL',
      body({ playbookId: 'a\u0000' }),
      'invalid_parameter',
      'playbookId must be a non-empty string of at most 200 characters',
    ],
    ['a body that is an array', [1, 2], 'invalid_request', 'body must be a JSON object'],
  ];

  it.each(refused)('refuses %s', async (_name, input, code, message) => {
    expect(await refusal(input)).toEqual({ code, message });
  });

  it('answers the first problem in the order of the request: a bad element before the messages as a whole', async () => {
    // Only an assistant message with a bad role: the role is named, not the missing user message.
    expect(await refusal(body({ messages: [{ role: 'tool', content: 'x' }] }))).toMatchObject({
      message: 'messages[0].role must be user, assistant or system',
    });
    expect(await refusal(body({ stream: false, conversationId: 'abc' }))).toMatchObject({ code: 'invalid_request' });
  });

  it('gives the turn the last user message, its files, and the options with their defaults', async () => {
    const id = '0B6F5BB6-52A4-4B29-8D6B-3F1F3E0F4F10';
    const dto = (await validate(
      body({
        conversationId: id,
        unknownField: 'ignored',
        messages: [
          { role: 'user', content: 'first' },
          { role: 'assistant', content: 'answer' },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'one' },
              { type: 'input_file', fileId: id, note: 'ignored' },
              { type: 'text', text: 'two' },
              { type: 'input_file', filepath: '/library/a.pdf' },
            ],
          },
        ],
        skillIds: ['summarize'],
        agentMode: false,
        personaKey: 'pirate',
      }),
    )) as ChatCompletionRequestDto;
    expect(dto).toBeInstanceOf(ChatCompletionRequestDto);
    expect(dto).not.toHaveProperty('unknownField');
    expect(toChatTurnRequest(dto)).toEqual({
      conversationId: id.toLowerCase(),
      text: 'one\n\ntwo',
      files: [{ fileId: id }, { filepath: '/library/a.pdf' }],
      options: { ...CHAT_TURN_DEFAULTS, agentMode: false, personaKey: 'pirate', skillIds: ['summarize'] },
    });
  });

  it('accepts exactly 1 MB of text, and a message of files only', async () => {
    await expect(validate(withContent('a'.repeat(1024 * 1024)))).resolves.toBeInstanceOf(ChatCompletionRequestDto);
    const filesOnly = (await validate(
      withContent([{ type: 'input_file', filepath: '/a' }]),
    )) as ChatCompletionRequestDto;
    expect(toChatTurnRequest(filesOnly)).toMatchObject({ text: '', files: [{ filepath: '/a' }] });
  });

  describe('cancel body', () => {
    it('takes no body, or a messageId UUID (lowercased)', async () => {
      expect(await validate(undefined, ChatCancelRequestDto)).toEqual({});
      const id = '0B6F5BB6-52A4-4B29-8D6B-3F1F3E0F4F10';
      expect(await validate({ messageId: id }, ChatCancelRequestDto)).toEqual({ messageId: id.toLowerCase() });
    });

    it('refuses a messageId that is not a UUID and a body that is not an object', async () => {
      expect(await refusal({ messageId: 'nope' }, ChatCancelRequestDto)).toEqual({
        code: 'invalid_parameter',
        message: 'messageId must be a UUID string',
      });
      expect(await refusal('text', ChatCancelRequestDto)).toEqual({
        code: 'invalid_request',
        message: 'body must be a JSON object',
      });
    });
  });
});
