import { useTestDatabase } from '@fed/persistence/testing';
import { MetricsScrape, ScriptedUpstream } from '@fed/testing';
import OpenAI from 'openai';
import { DataSource } from 'typeorm';
import { CHAT_MODEL, type ChatStack, bootChatStack } from './testing/boot-chat-stack';
import { runTurn } from './testing/chat-turn';
import { textAnswer, toolCall } from './testing/model-answers';

// One agent turn end to end in one process: chat-service admits it and relays the stream, the agent
// runtime runs it and calls the model only through llm-gateway, which calls the scripted upstream.

interface StreamChunk {
  createdAt: string;
  model: string;
  choices: {
    index: number;
    delta: {
      content?: string;
      tasks?: { actionType: string; status: string; callId?: string }[];
      interaction?: unknown;
    };
    finishReason: string | null;
    status?: string;
  }[];
}

describe('an agent turn through chat-service, agent-runtime and llm-gateway', () => {
  const database = useTestDatabase();
  let upstream: ScriptedUpstream;
  let stack: ChatStack;

  beforeAll(async () => {
    upstream = await ScriptedUpstream.start();
    stack = await bootChatStack(database.url, upstream.url);
  });

  afterAll(async () => {
    await stack?.close();
    await upstream?.close();
  });

  it('streams a plain answer that the official openai client reads, and stores it in history', async () => {
    upstream.enqueue(textAnswer(['Hello', ' from', ' the model']));
    const token = await stack.userToken();
    const client = new OpenAI({ baseURL: `${stack.api}/v1`, apiKey: token, maxRetries: 0 });
    const { data: stream, response } = await client.chat.completions
      .create({
        model: CHAT_MODEL,
        messages: [{ role: 'user', content: 'Say hello' }],
        stream: true,
        // Our fields beside the OpenAI ones.
        ...({ agentMode: false, outputFormat: 'markdown' } as object),
      })
      .withResponse();
    const chunks: StreamChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk as unknown as StreamChunk);
    const conversationId = response.headers.get('x-conversation-id') as string;
    const messageId = response.headers.get('x-message-id') as string;

    expect(chunks[0]?.choices[0]?.delta).toEqual({ role: 'assistant', messageInfo: { conversationId, messageId } });
    const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe('Hello from the model');
    expect(chunks.at(-1)?.choices[0]?.finishReason).toBe('stop');
    for (const chunk of chunks) {
      expect(chunk.model).toBe(CHAT_MODEL);
      expect(chunk.choices).toHaveLength(1);
      expect(chunk.choices[0]?.index).toBe(0);
    }
    expect(chunks.slice(0, -1).every((chunk) => chunk.choices[0]?.finishReason === null)).toBe(true);
    // agentMode false: no tools offered to the model.
    const [sent] = await upstream.waitForRequests(1);
    expect((sent?.json as { tools?: unknown }).tools).toBeUndefined();

    const history = await fetch(`${stack.api}/v1/conversations/${conversationId}/messages?order=asc`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const { messages } = (await history.json()) as { messages: { sender: string; text: string; status: unknown }[] };
    expect(messages.map((m) => [m.sender, m.text])).toEqual([
      ['User', 'Say hello'],
      ['AI', 'Hello from the model'],
    ]);
    expect(messages[1]?.status).toEqual({ processing: false, unfinished: false });
  });

  it('shows a tool call as tasks, asks the user, and takes the next message as the answer', async () => {
    upstream.reset();
    upstream.enqueue(
      toolCall('call_mem', 'search_memory', { query: 'holidays' }),
      toolCall('call_ask', 'ask_user', {
        interactionType: 'choice',
        content: 'Which city?',
        options: ['Paris', 'Rome'],
      }),
    );
    const token = await stack.userToken();
    const post = (body: Record<string, unknown>) =>
      fetch(`${stack.api}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: CHAT_MODEL, stream: true, reportMode: 'without', ...body }),
      });
    const readChunks = async (response: Response) => {
      const text = await response.text();
      const datas = text
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6));
      expect(datas.at(-1)).toBe('[DONE]');
      return datas.slice(0, -1).map((data) => JSON.parse(data) as StreamChunk);
    };

    const first = await post({ messages: [{ role: 'user', content: 'Plan a trip' }] });
    expect(first.status).toBe(200);
    const conversationId = first.headers.get('x-conversation-id') as string;
    const chunks = await readChunks(first);
    const tasks = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tasks ?? []);
    expect(tasks.map((task) => [task.actionType, task.status, task.callId])).toEqual([
      ['tool_start', 'in_progress', 'call_mem'],
      ['tool_result', 'completed', 'call_mem'],
      // The question is a task too, pending until the user answers.
      ['tool_start', 'in_progress', 'call_ask'],
      ['tool_result', 'pending', 'call_ask'],
    ]);
    const interaction = chunks.map((chunk) => chunk.choices[0]?.delta.interaction).find(Boolean);
    expect(interaction).toEqual({ interactionType: 'choice', content: 'Which city?', options: ['Paris', 'Rome'] });
    expect(chunks.at(-1)?.choices[0]?.finishReason).toBe('stop');

    upstream.enqueue(textAnswer(['Rome it is.']));
    const second = await post({ conversationId, messages: [{ role: 'user', content: 'Rome' }] });
    expect(second.status).toBe(200);
    const answer = (await readChunks(second)).map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    expect(answer).toBe('Rome it is.');
    const requests = await upstream.waitForRequests(3);
    const messages = (requests[2]?.json as { messages: { role: string; content: unknown; tool_call_id?: string }[] })
      .messages;
    expect(messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_ask', content: 'Rome' });

    // In history the question's task is no longer pending once answered.
    const history = await fetch(`${stack.api}/v1/conversations/${conversationId}/messages?order=asc`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const { messages: stored } = (await history.json()) as {
      messages: { sender: string; tasks: { actionType: string; status: string; callId?: string }[] }[];
    };
    const asked = stored[1]?.tasks.find((task) => task.callId === 'call_ask' && task.actionType === 'tool_result');
    expect(asked?.status).toBe('completed');

    const [row] = (await stack.service.nest
      .get(DataSource)
      .query(`SELECT count(*)::int AS "processing" FROM "conversations"."messages" WHERE "processing"`)) as {
      processing: number;
    }[];
    expect(row?.processing).toBe(0);
  });

  it('counts the open stream until its client goes away, and the turn and its model call once it ends, on /metrics', async () => {
    upstream.reset();
    const scrape = () => MetricsScrape.of(stack.service.url);
    const before = await scrape();
    expect(before.find('sse_streams_active', { kind: 'chat' })).toEqual([
      { name: 'sse_streams_active', labels: { service: 'platform', kind: 'chat' }, value: 0 },
    ]);
    // The first piece ends with a space: with the default outputFormat (plain) the Markdown stripper holds
    // an unfinished word until the next piece, so a first piece `Slow` went out with the second, after the
    // pause, moments before the stream ended, and a scrape on a loaded CI machine came after that end.
    const pauseMs = 2000;
    upstream.enqueue(textAnswer(['Slow ', 'answer'], pauseMs));
    const client = new AbortController();
    const response = await fetch(`${stack.api}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await stack.userToken()}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: CHAT_MODEL, stream: true, messages: [{ role: 'user', content: 'Go slowly' }] }),
      signal: client.signal,
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    while (!text.includes('Slow')) text += new TextDecoder().decode((await reader.read()).value);
    // The pause is still ahead: the piece came alone, and the stream is open.
    expect(text).not.toContain('answer');
    expect((await scrape()).sum('sse_streams_active', { kind: 'chat' })).toBe(1);
    client.abort();

    // The client gone: the stream is no longer counted; the turn goes on to its end.
    const added = (after: MetricsScrape, name: string, labels: Record<string, string>) =>
      after.sum(name, labels) - before.sum(name, labels);
    let after = await scrape();
    // The gateway counts a streamed call's tokens once its stream is over, which may come after the turn's end.
    while (
      after.sum('sse_streams_active', { kind: 'chat' }) !== 0 ||
      added(after, 'agent_turns_total', { outcome: 'completed' }) === 0 ||
      added(after, 'gateway_tokens_total', { model: 'agent-model', direction: 'output' }) === 0
    ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      after = await scrape();
    }
    expect(added(after, 'agent_turns_total', { outcome: 'completed' })).toBe(1);
    expect(added(after, 'agent_turn_duration_seconds_count', { outcome: 'completed' })).toBe(1);
    // The pause between the two pieces is part of the turn.
    expect(added(after, 'agent_turn_duration_seconds_sum', { outcome: 'completed' })).toBeGreaterThanOrEqual(
      pauseMs / 1000,
    );
    expect(added(after, 'agent_turns_total', { outcome: 'error' })).toBe(0);
    expect(added(after, 'gateway_upstream_duration_seconds_count', { provider: 'scripted', status_class: '2xx' })).toBe(
      1,
    );
    expect(added(after, 'gateway_tokens_total', { model: 'agent-model', direction: 'output' })).toBeGreaterThan(0);

    // A stream read to its end is no longer counted either.
    upstream.enqueue(textAnswer(['Done']));
    await runTurn(stack.api, await stack.userToken(), { messages: [{ role: 'user', content: 'Quick' }] });
    while ((await scrape()).sum('sse_streams_active', { kind: 'chat' }) !== 0) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });

  it('reconnects while the turn runs and reads it to [DONE] after its end; once it has ended, the reconnect is 404 (spec)', async () => {
    upstream.reset();
    const token = await stack.userToken();
    upstream.enqueue(textAnswer(['First ', 'second ', 'third'], 300));
    const response = await fetch(`${stack.api}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: CHAT_MODEL, stream: true, messages: [{ role: 'user', content: 'Three words' }] }),
    });
    const conversationId = response.headers.get('x-conversation-id') as string;
    const reconnect = (headers: Record<string, string> = {}) =>
      fetch(`${stack.api}/v1/chat/completions/${conversationId}`, {
        headers: { authorization: `Bearer ${token}`, ...headers },
      });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    let posted = '';
    while (!posted.includes('First')) posted += new TextDecoder().decode((await reader.read()).value);
    // Joined while the turn runs; read only once the turn has ended: the kept log serves it whole.
    const joined = await reconnect();
    expect(joined.status).toBe(200);
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      posted += new TextDecoder().decode(value);
    }
    expect(posted.trimEnd().endsWith('data: [DONE]')).toBe(true);
    const ids = [...posted.matchAll(/^id: (.+)$/gm)].map((match) => match[1] as string);
    expect(ids.length).toBeGreaterThan(1);
    const text = (stream: string) =>
      stream
        .split('\n')
        .filter((line) => line.startsWith('data: {'))
        .map((line) => (JSON.parse(line.slice(6)) as StreamChunk).choices[0]?.delta.content ?? '')
        .join('');
    const rejoined = await joined.text();
    expect(text(rejoined)).toBe('First second third');
    expect(rejoined.trimEnd().endsWith('data: [DONE]')).toBe(true);

    // Ended: nothing in progress, with or without Last-Event-ID (document 2: "not in progress" is 404).
    const asked: Record<string, string>[] = [
      {},
      { 'last-event-id': ids[0] as string },
      { 'last-event-id': ids.at(-1) as string },
    ];
    for (const headers of asked) {
      const late = await reconnect(headers);
      expect(late.status).toBe(404);
      expect(await late.json()).toEqual({
        error: { type: expect.any(String), code: 'not_found', message: 'the conversation has no turn in progress' },
      });
    }
    // The finished answer is the conversation's last message.
    const history = await fetch(`${stack.api}/v1/conversations/${conversationId}/messages?order=desc&limit=1`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const { messages } = (await history.json()) as { messages: { sender: string; text: string }[] };
    expect(messages.map((m) => [m.sender, m.text])).toEqual([['AI', 'First second third']]);
  });
});
