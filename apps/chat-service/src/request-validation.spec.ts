import { useTestDatabase } from '@fed/persistence/testing';
import { randomUUID } from 'node:crypto';
import { type RunningChatService, type TestUser, bootChatService } from './testing/boot-chat-service';

interface Refusal {
  method: string;
  path: string;
  /** JSON-encoded unless it is a string, which is sent as it is. */
  body?: unknown;
  headers?: Record<string, string>;
  code: string;
  /** Checked where the message is part of what the endpoint promises. */
  message?: string;
}

// Every REST endpoint of chat-service that takes input, each with malformed input: the answer is the
// spec's 400 with its code, in the error envelope, whether the endpoint validates through the
// application's ValidationPipe (DTO classes) or by hand.
describe('chat-service: malformed requests answer 400 in the error envelope', () => {
  const database = useTestDatabase();
  let chat: RunningChatService;
  let user: TestUser;
  const conversationId = randomUUID();

  beforeAll(async () => {
    chat = await bootChatService({ databaseUrl: database.url });
    user = chat.user();
  });

  afterAll(async () => {
    await chat?.close();
  });

  async function send({ method, path, body, headers }: Refusal) {
    const response = await fetch(`${chat.api}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${await user.token()}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: response.status, contentType: response.headers.get('content-type'), body: await response.json() };
  }

  const refusals: [string, Refusal][] = [
    // GET /v1/conversations
    [
      'a conversation list limit over 100',
      {
        method: 'GET',
        path: '/v1/conversations?limit=101',
        code: 'invalid_parameter',
        message: 'limit must be an integer from 1 to 100',
      },
    ],
    [
      'a conversation list mode other than active or archive',
      { method: 'GET', path: '/v1/conversations?mode=all', code: 'invalid_parameter' },
    ],
    [
      'a conversation list cursor that was never returned',
      { method: 'GET', path: '/v1/conversations?cursor=nope', code: 'invalid_cursor' },
    ],
    // GET /v1/conversations/:conversationId/messages
    [
      'a history request with a malformed conversationId',
      {
        method: 'GET',
        path: '/v1/conversations/not-a-uuid/messages',
        code: 'invalid_conversation_id',
        message: 'conversationId must be a UUID',
      },
    ],
    [
      'a history request with an unknown order',
      { method: 'GET', path: `/v1/conversations/${conversationId}/messages?order=up`, code: 'invalid_parameter' },
    ],
    [
      'a history request with both a malformed conversationId and a malformed limit (the id is checked first)',
      { method: 'GET', path: '/v1/conversations/x/messages?limit=0', code: 'invalid_conversation_id' },
    ],
    // PATCH /v1/conversations/:conversationId
    [
      'a rename whose title is not a string',
      {
        method: 'PATCH',
        path: `/v1/conversations/${conversationId}`,
        body: { title: 42 },
        code: 'invalid_request',
        message: 'title must be a string',
      },
    ],
    [
      'a rename whose body is not a JSON object',
      {
        method: 'PATCH',
        path: `/v1/conversations/${conversationId}`,
        body: ['title'],
        code: 'invalid_request',
        message: 'body must be a JSON object',
      },
    ],
    [
      'a rename whose body is not JSON',
      { method: 'PATCH', path: `/v1/conversations/${conversationId}`, body: '{"title":', code: 'invalid_json' },
    ],
    [
      'a rename of a malformed conversationId',
      { method: 'PATCH', path: '/v1/conversations/123', body: { title: 'x' }, code: 'invalid_conversation_id' },
    ],
    // DELETE /v1/conversations/:conversationId and POST .../restore
    [
      'a delete of a malformed conversationId',
      { method: 'DELETE', path: '/v1/conversations/x', code: 'invalid_conversation_id' },
    ],
    [
      'a restore of a malformed conversationId',
      { method: 'POST', path: '/v1/conversations/abc/restore', code: 'invalid_conversation_id' },
    ],
    // Catalog lists
    ['a persona list limit of 0', { method: 'GET', path: '/v1/personas?limit=0', code: 'invalid_parameter' }],
    [
      'a playbook list order other than asc or desc',
      {
        method: 'GET',
        path: '/v1/playbooks?order=sideways',
        code: 'invalid_parameter',
        message: 'order must be asc or desc',
      },
    ],
    [
      'a skill list cursor that was never returned',
      { method: 'GET', path: '/v1/skills?cursor=garbage', code: 'invalid_cursor' },
    ],
    // POST /v1/chat/completions
    [
      'a chat request that is not a JSON object',
      { method: 'POST', path: '/v1/chat/completions', body: [1, 2], code: 'invalid_request' },
    ],
    [
      'a chat request without stream',
      {
        method: 'POST',
        path: '/v1/chat/completions',
        body: { model: 'federation-agent', messages: [{ role: 'user', content: 'x' }] },
        code: 'invalid_request',
      },
    ],
    [
      'a chat request with a malformed conversationId',
      {
        method: 'POST',
        path: '/v1/chat/completions',
        body: {
          model: 'federation-agent',
          stream: true,
          conversationId: 'abc',
          messages: [{ role: 'user', content: 'x' }],
        },
        code: 'invalid_conversation_id',
      },
    ],
    [
      'a chat request with an unknown agentLevel',
      {
        method: 'POST',
        path: '/v1/chat/completions',
        body: {
          model: 'federation-agent',
          stream: true,
          agentLevel: 'max',
          messages: [{ role: 'user', content: 'x' }],
        },
        code: 'invalid_parameter',
      },
    ],
    // GET /v1/chat/completions/:conversationId (rejoin)
    [
      'a rejoin of a malformed conversationId',
      { method: 'GET', path: '/v1/chat/completions/not-a-uuid', code: 'invalid_conversation_id' },
    ],
    [
      'a rejoin with a Last-Event-ID that is not an id of the stream',
      {
        method: 'GET',
        path: `/v1/chat/completions/${conversationId}`,
        headers: { 'last-event-id': 'nope' },
        code: 'invalid_parameter',
      },
    ],
    // POST /v1/chat/completions/:conversationId/cancel
    [
      'a cancel of a malformed conversationId',
      { method: 'POST', path: '/v1/chat/completions/nope/cancel', code: 'invalid_conversation_id' },
    ],
    [
      'a cancel whose messageId is not a UUID',
      {
        method: 'POST',
        path: `/v1/chat/completions/${conversationId}/cancel`,
        body: { messageId: 'nope' },
        code: 'invalid_parameter',
      },
    ],
    [
      'a cancel whose body is not a JSON object',
      { method: 'POST', path: `/v1/chat/completions/${conversationId}/cancel`, body: ['x'], code: 'invalid_request' },
    ],
  ];

  it.each(refusals)('400 for %s', async (_name, refusal) => {
    const { status, contentType, body } = await send(refusal);
    expect(status).toBe(400);
    expect(contentType).toMatch(/^application\/json/);
    expect(Object.keys(body as object)).toEqual(['error']);
    const { error } = body as { error: Record<string, unknown> };
    expect(Object.keys(error).sort()).toEqual(['code', 'message', 'type']);
    expect(error).toEqual({
      type: 'invalid_request_error',
      code: refusal.code,
      message: refusal.message ?? expect.stringMatching(/\S/),
    });
  });

  it('ignores query parameters and body fields it does not know', async () => {
    const list = await send({ method: 'GET', path: '/v1/conversations?unknown=1&limit=5', code: '' });
    expect(list).toMatchObject({ status: 200, body: { conversations: [], hasMore: false } });
    const rename = await send({
      method: 'PATCH',
      path: `/v1/conversations/${conversationId}`,
      body: { title: 'renamed', unknown: true, __proto__: { admin: true } },
      code: '',
    });
    // Past validation: the conversation does not exist.
    expect(rename).toMatchObject({ status: 404, body: { error: { code: 'conversation_not_found' } } });
  });
});
