import { type RunningService } from '@fed/server';
import { useTestDatabase } from '@fed/persistence/testing';
import { contentChunk, finalChunk } from '@fed/contracts';
import { TurnReaper } from '@fed/conversations';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { type RunningChatService, type TestUser, bootChatService } from './testing/boot-chat-service';
import { SseReader, chunkOf } from './testing/sse-reader';

// The chat endpoints of chat-service alone: no runtime takes the queued turns, so each test plays the
// runtime by appending to the run stream, or leaves the turn processing.
describe('chat turns: POST /v1/chat/completions, reconnect, cancel', () => {
  const database = useTestDatabase();
  let chat: RunningChatService;
  let service: RunningService;
  let alice: TestUser;
  let token: string;
  const MODEL = 'federation-agent';

  beforeAll(async () => {
    chat = await bootChatService({ databaseUrl: database.url, env: { CHAT_HEARTBEAT_SECONDS: '1' } });
    service = chat.service;
    alice = chat.user();
    token = await alice.token();
  });

  afterAll(async () => {
    await chat?.close();
  });

  const post = (body: unknown, bearer = token) =>
    fetch(`${chat.api}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  const request = (text = 'Hello', extra: Record<string, unknown> = {}) => ({
    model: MODEL,
    messages: [{ role: 'user', content: text }],
    stream: true,
    ...extra,
  });

  /** Starts a turn; returns the stream reader past `: connected` and the role chunk. */
  async function startTurn(extra: Record<string, unknown> = {}, bearer = token) {
    const response = await post(request('Hello', extra), bearer);
    expect(response.status).toBe(200);
    const reader = new SseReader(response);
    expect(await reader.next()).toEqual({ comment: 'connected' });
    const role = await reader.next();
    const conversationId = response.headers.get('x-conversation-id') as string;
    const runId = response.headers.get('x-message-id') as string;
    return { response, reader, role, conversationId, runId };
  }

  const append = (runId: string, chunk: unknown) => service.bus.runStream.append(runId, JSON.stringify(chunk));
  const finish = async (runId: string) => {
    await service.nest
      .get(DataSource)
      .query('UPDATE "conversations"."messages" SET "processing" = false WHERE "id" = $1', [runId]);
    await append(runId, finalChunk(MODEL, 'stop'));
    await service.bus.runStream.end(runId);
  };

  it('answers 200 with the stream headers, `: connected`, the role chunk with messageInfo, then content, the final chunk and [DONE]', async () => {
    const { response, reader, role, conversationId, runId } = await startTurn();
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(conversationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(runId).toMatch(/^[0-9a-f-]{36}$/);
    expect(role).toEqual({ id: expect.stringMatching(/^\d+-\d+$/), data: expect.any(String) });
    expect(chunkOf(role)).toEqual({
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      model: MODEL,
      choices: [
        {
          index: 0,
          delta: { role: 'assistant', messageInfo: { conversationId, messageId: runId } },
          finishReason: null,
        },
      ],
    });
    await append(runId, contentChunk(MODEL, { content: 'Hi ' }));
    await append(runId, contentChunk(MODEL, { content: 'there' }));
    await finish(runId);
    const rest = await reader.rest();
    expect(rest.map((item) => ('data' in item ? (item.data === '[DONE]' ? '[DONE]' : 'chunk') : item.comment))).toEqual(
      ['chunk', 'chunk', 'chunk', '[DONE]'],
    );
    const chunks = rest.slice(0, 3).map(chunkOf);
    expect(chunks.map((c) => c.choices[0].delta.content ?? null)).toEqual(['Hi ', 'there', null]);
    expect(chunks.map((c) => c.choices[0].finishReason)).toEqual([null, null, 'stop']);
    for (const chunk of chunks) expect(chunk.choices).toHaveLength(1);
    const ids = [role, ...rest.slice(0, 3)].map((item) => (item as { id: string }).id);
    expect(new Set(ids).size).toBe(4);
  });

  describe('refuses a bad request before the stream, as JSON in the envelope', () => {
    const big = 'a'.repeat(1024 * 1024 + 1);
    const cases: [string, unknown, string][] = [
      ['model missing', { messages: [{ role: 'user', content: 'x' }], stream: true }, 'invalid_request'],
      ['model not a string', request('x', { model: 7 }), 'invalid_request'],
      ['another model', request('x', { model: 'gpt-4o' }), 'invalid_parameter'],
      ['messages missing', { model: MODEL, stream: true }, 'invalid_request'],
      ['messages empty', request('x', { messages: [] }), 'invalid_request'],
      ['messages not an array', request('x', { messages: 'hi' }), 'invalid_request'],
      ['no user message', request('x', { messages: [{ role: 'assistant', content: 'x' }] }), 'invalid_request'],
      ['role missing', request('x', { messages: [{ content: 'x' }] }), 'invalid_request'],
      ['role unknown', request('x', { messages: [{ role: 'tool', content: 'x' }] }), 'invalid_request'],
      ['content missing', request('x', { messages: [{ role: 'user' }] }), 'invalid_request'],
      ['content of a wrong type', request('x', { messages: [{ role: 'user', content: 5 }] }), 'invalid_request'],
      [
        'a part of an unknown type',
        request('x', { messages: [{ role: 'user', content: [{ type: 'image' }] }] }),
        'invalid_request',
      ],
      [
        'input_file with both fileId and filepath',
        request('x', {
          messages: [{ role: 'user', content: [{ type: 'input_file', fileId: randomUUID(), filepath: '/a' }] }],
        }),
        'invalid_request',
      ],
      [
        'more than 20 input_file parts',
        request('x', {
          messages: [
            {
              role: 'user',
              content: Array.from({ length: 21 }, () => ({ type: 'input_file', fileId: randomUUID() })),
            },
          ],
        }),
        'invalid_request',
      ],
      ['stream missing', { model: MODEL, messages: [{ role: 'user', content: 'x' }] }, 'invalid_request'],
      ['stream false', request('x', { stream: false }), 'invalid_request'],
      ['conversationId not a string', request('x', { conversationId: 12 }), 'invalid_conversation_id'],
      ['conversationId not a UUID', request('x', { conversationId: 'abc' }), 'invalid_conversation_id'],
      [
        'skillIds with 11 entries',
        request('x', { skillIds: Array.from({ length: 11 }, (_, i) => `s${i}`) }),
        'invalid_parameter',
      ],
      ['text over 1 MB', request(big), 'invalid_request'],
      ['text with NUL', request('a\u0000b'), 'invalid_request'],
      ['text with a lone surrogate', request('a\ud800b'), 'invalid_request'],
      ['agentLevel unknown', request('x', { agentLevel: 'max' }), 'invalid_parameter'],
      ['agentMode not a boolean', request('x', { agentMode: 'yes' }), 'invalid_parameter'],
      ['outputFormat unknown', request('x', { outputFormat: 'html' }), 'invalid_parameter'],
      ['unknown playbookId', request('x', { playbookId: randomUUID() }), 'invalid_parameter'],
      ['a body that is not an object', [1, 2], 'invalid_request'],
    ];
    it.each(cases)('400 for %s', async (_name, body, code) => {
      const response = await post(body);
      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(((await response.json()) as { error: unknown }).error).toMatchObject({
        type: 'invalid_request_error',
        code,
      });
    });

    it('accepts exactly 1 MB of text and 10 skillIds (unknown skills are ignored)', async () => {
      const { reader, runId } = await startTurn({
        messages: [{ role: 'user', content: 'a'.repeat(1024 * 1024) }],
        skillIds: Array.from({ length: 10 }, (_, i) => `s${i}`),
      });
      await finish(runId);
      await reader.rest();
    });

    it('404 for an input_file that does not exist', async () => {
      const response = await post(
        request('x', { messages: [{ role: 'user', content: [{ type: 'input_file', fileId: randomUUID() }] }] }),
      );
      expect(response.status).toBe(404);
    });

    it('401 without a token and 403 without chat:exec', async () => {
      expect((await fetch(`${chat.api}/v1/chat/completions`, { method: 'POST' })).status).toBe(401);
      const response = await post(request(), await alice.token('openid chat:history'));
      expect(response.status).toBe(403);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('insufficient_scope');
    });
  });

  describe('conversations', () => {
    it('409 while the conversation is processing, also for simultaneous requests', async () => {
      const { reader, conversationId, runId } = await startTurn();
      const again = await post(request('again', { conversationId }));
      expect(again.status).toBe(409);
      expect(((await again.json()) as { error: { code: string } }).error.code).toBe('conversation_processing');
      await finish(runId);
      await reader.rest();

      const both = await Promise.all([
        post(request('one', { conversationId })),
        post(request('two', { conversationId })),
      ]);
      expect(both.map((r) => r.status).sort()).toEqual([200, 409]);
      const winner = both.find((r) => r.status === 200) as Response;
      await finish(winner.headers.get('x-message-id') as string);
      await new SseReader(winner).rest();
    });

    it('continues a conversation after its turn ended, and another user cannot (404)', async () => {
      const first = await startTurn();
      await finish(first.runId);
      await first.reader.rest();
      const second = await startTurn({ conversationId: first.conversationId });
      expect(second.conversationId).toBe(first.conversationId);
      await finish(second.runId);
      await second.reader.rest();

      const bob = await chat.user().token();
      const foreign = await post(request('x', { conversationId: first.conversationId }), bob);
      expect(foreign.status).toBe(404);
      expect(((await foreign.json()) as { error: { code: string } }).error.code).toBe('conversation_not_found');
      expect((await post(request('x', { conversationId: randomUUID() }))).status).toBe(404);
    });

    it('400 conversation_archived for a chat request and a cancel on an archived conversation', async () => {
      const { reader, conversationId, runId } = await startTurn();
      await finish(runId);
      await reader.rest();
      await service.nest.get(DataSource).query(
        `WITH moved AS (DELETE FROM "conversations"."conversations" WHERE "id" = $1 RETURNING *)
         INSERT INTO "conversations"."archived_conversations"
           SELECT "id", "user_id", "tenant_id", "title", "created_at", "updated_at", now() FROM moved`,
        [conversationId],
      );
      const chatting = await post(request('x', { conversationId }));
      expect(chatting.status).toBe(400);
      expect(((await chatting.json()) as { error: { code: string } }).error.code).toBe('conversation_archived');
      const cancel = await fetch(`${chat.api}/v1/chat/completions/${conversationId}/cancel`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
      });
      expect(cancel.status).toBe(400);
      expect(((await cancel.json()) as { error: { code: string } }).error.code).toBe('conversation_archived');
    });
  });

  describe('reconnect: GET /v1/chat/completions/:conversationId', () => {
    const rejoin = (conversationId: string, headers: Record<string, string> = {}, query = '') =>
      fetch(`${chat.api}/v1/chat/completions/${conversationId}${query}`, {
        headers: { authorization: `Bearer ${token}`, ...headers },
      });

    it('replays from the start, or after Last-Event-ID (header or query), then follows live without loss or repeat', async () => {
      const { reader, conversationId, runId, role } = await startTurn();
      await reader.cancel();
      const first = await append(runId, contentChunk(MODEL, { content: 'one ' }));
      await append(runId, contentChunk(MODEL, { content: 'two ' }));

      const fromStart = await rejoin(conversationId);
      expect(fromStart.status).toBe(200);
      expect(fromStart.headers.get('x-conversation-id')).toBe(conversationId);
      expect(fromStart.headers.get('x-message-id')).toBe(runId);
      const all = new SseReader(fromStart);
      expect(await all.next()).toEqual({ comment: 'connected' });
      expect(await all.next()).toEqual(role);

      const afterFirst = new SseReader(await rejoin(conversationId, { 'last-event-id': first }));
      const byQuery = new SseReader(await rejoin(conversationId, {}, `?lastEventId=${encodeURIComponent(first)}`));
      // Appends racing with the readers' backlog reads.
      const live = (async () => {
        for (let i = 0; i < 20; i++) await append(runId, contentChunk(MODEL, { content: `${i} ` }));
        await finish(runId);
      })();
      const texts = async (sse: SseReader) =>
        (await sse.rest())
          .filter((item) => 'data' in item && item.data !== '[DONE]')
          .map((item) => chunkOf(item).choices[0].delta.content ?? '')
          .join('');
      const live20 = Array.from({ length: 20 }, (_, i) => `${i} `).join('');
      const [whole, after, query] = await Promise.all([texts(all), texts(afterFirst), texts(byQuery), live]);
      expect(whole).toBe(`one two ${live20}`);
      expect(after).toBe(`two ${live20}`);
      expect(query).toBe(`two ${live20}`);
    });

    it('404 when nothing is in progress or the conversation is another user’s; 400 for a malformed id or cursor', async () => {
      const { reader, conversationId, runId } = await startTurn();
      expect((await rejoin(conversationId, { 'last-event-id': 'nope' })).status).toBe(400);
      const bob = await chat.user().token();
      const foreign = await fetch(`${chat.api}/v1/chat/completions/${conversationId}`, {
        headers: { authorization: `Bearer ${bob}` },
      });
      expect(foreign.status).toBe(404);
      await finish(runId);
      await reader.rest();
      expect((await rejoin(conversationId)).status).toBe(404);
      expect((await rejoin('not-a-uuid')).status).toBe(400);
      expect((await rejoin(randomUUID())).status).toBe(404);
    });

    it('sends `: heartbeat` after the configured silence', async () => {
      const { reader, runId } = await startTurn();
      const started = Date.now();
      expect(await reader.next()).toEqual({ comment: 'heartbeat' });
      expect(Date.now() - started).toBeGreaterThanOrEqual(800);
      await finish(runId);
      await reader.rest();
    });
  });

  describe('cancel', () => {
    const cancel = (conversationId: string, body?: unknown) =>
      fetch(`${chat.api}/v1/chat/completions/${conversationId}/cancel`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });

    it('answers {conversationId, cancelled: true}, signals the runtime, and ends a turn no runtime has taken', async () => {
      const { reader, conversationId, runId } = await startTurn();
      const signalled: unknown[] = [];
      const subscription = await service.bus.signals.subscribe('run.cancelled', (signal) => signalled.push(signal));
      const response = await cancel(conversationId);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ conversationId, cancelled: true });
      const rest = await reader.rest();
      const last = chunkOf(rest[rest.length - 2]);
      expect(last.choices[0]).toMatchObject({ finishReason: 'stop', status: 'unfinished' });
      expect(rest[rest.length - 1]).toEqual({ data: '[DONE]' });
      expect(signalled).toEqual([{ version: 1, conversationId, runId }]);
      await subscription.unsubscribe();
      const [message] = await service.nest
        .get(DataSource)
        .query('SELECT "processing", "unfinished" FROM "conversations"."messages" WHERE "id" = $1', [runId]);
      expect(message).toEqual({ processing: false, unfinished: true });
      // The conversation takes a new turn at once.
      const next = await startTurn({ conversationId });
      await finish(next.runId);
      await next.reader.rest();
    });

    it('400 for a malformed id or messageId, 404 for an unknown conversation or message', async () => {
      const { reader, conversationId, runId } = await startTurn();
      expect((await cancel('nope')).status).toBe(400);
      expect((await cancel(conversationId, { messageId: 'nope' })).status).toBe(400);
      expect((await cancel(randomUUID())).status).toBe(404);
      expect((await cancel(conversationId, { messageId: randomUUID() })).status).toBe(404);
      await finish(runId);
      await reader.rest();
    });
  });

  it('the reaper ends a turn whose runtime stopped reporting, with an error chunk', async () => {
    const { reader, runId } = await startTurn();
    await service.nest
      .get(DataSource)
      .query(`UPDATE "conversations"."messages" SET "heartbeat_at" = now() - interval '1 hour' WHERE "id" = $1`, [
        runId,
      ]);
    const reaper = service.nest.get(TurnReaper);
    expect(await reaper.sweep(60_000, 3_600_000)).toEqual([runId]);
    const rest = await reader.rest();
    const last = chunkOf(rest[rest.length - 2]);
    expect(last.choices[0]).toMatchObject({ finishReason: 'error', status: 'unfinished' });
    expect(last.error).toEqual({ code: 'runtime_lost', message: expect.any(String) });
  });
});
