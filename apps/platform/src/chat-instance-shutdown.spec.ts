import { testServiceUrls } from '@fed/config';
import { useTestDatabase } from '@fed/persistence/testing';
import { ScriptedUpstream, deleteRedisKeys } from '@fed/testing';
import { randomUUID } from 'node:crypto';
import { CHAT_MODEL, type ChatStack, bootChatStack } from './testing/boot-chat-stack';
import { textAnswer } from './testing/model-answers';

interface Event {
  id?: string;
  data: string;
}

function eventsOf(text: string): Event[] {
  return text
    .split('\n\n')
    .filter((block) => block.includes('data: '))
    .map((block) => {
      const lines = block.split('\n');
      const id = lines.find((line) => line.startsWith('id: '))?.slice(4);
      const data = lines.find((line) => line.startsWith('data: '))?.slice(6) ?? '';
      return id === undefined ? { data } : { id, data };
    });
}

const contentOf = (events: Event[]) =>
  events
    .filter((event) => event.data.startsWith('{'))
    .map(
      (event) =>
        (JSON.parse(event.data) as { choices: { delta: { content?: string } }[] }).choices[0]?.delta.content ?? '',
    )
    .join('');

// Two chat-service instances share PostgreSQL and Redis; the agent runs beside the second one.
describe('a chat-service instance that stops gracefully', () => {
  const database = useTestDatabase();
  const redisUrl = testServiceUrls().redisUrl;
  const keyPrefix = `test:${randomUUID().slice(0, 8)}:`;
  let upstream: ScriptedUpstream;
  let stopping: ChatStack;
  let staying: ChatStack;

  beforeAll(async () => {
    upstream = await ScriptedUpstream.start();
    const redis = { url: redisUrl, keyPrefix };
    stopping = await bootChatStack(database.url, upstream.url, { redis, runtime: false });
    staying = await bootChatStack(database.url, upstream.url, { redis });
  });

  afterAll(async () => {
    await staying?.close();
    await stopping?.close();
    await upstream?.close();
    await deleteRedisKeys(redisUrl, keyPrefix);
  });

  it('ends its open streams without [DONE]; the turn goes on and is rejoined on another instance', async () => {
    upstream.enqueue(textAnswer(['first ', 'second ', 'third'], 700));
    const userId = randomUUID();
    const response = await fetch(`${stopping.api}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await stopping.userToken(userId)}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: CHAT_MODEL,
        stream: true,
        agentMode: false,
        outputFormat: 'markdown',
        messages: [{ role: 'user', content: 'Count' }],
      }),
    });
    expect(response.status).toBe(200);
    const conversationId = response.headers.get('x-conversation-id') as string;
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let received = '';
    while (!received.includes('first ')) {
      const { value, done } = await reader.read();
      if (done) throw new Error('stream ended early');
      received += decoder.decode(value, { stream: true });
    }

    const shutdown = stopping.service.shutdown('test');
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      received += decoder.decode(value, { stream: true });
    }
    await shutdown;
    const before = eventsOf(received);
    expect(before.some((event) => event.data === '[DONE]')).toBe(false);
    const lastId = before.at(-1)?.id as string;

    const rejoined = await fetch(`${staying.api}/v1/chat/completions/${conversationId}`, {
      headers: { authorization: `Bearer ${await staying.userToken(userId)}`, 'last-event-id': lastId },
    });
    expect(rejoined.status).toBe(200);
    const after = eventsOf(await rejoined.text());
    expect(after.at(-1)?.data).toBe('[DONE]');
    expect(contentOf(before) + contentOf(after)).toBe('first second third');
    const ids = [...before, ...after].map((event) => event.id).filter(Boolean);
    expect(new Set(ids).size).toBe(ids.length);
  }, 30_000);
});
