import { testServiceUrls } from '@fed/config';
import { useTestDatabase } from '@fed/persistence/testing';
import { type ProcessHandle, ScriptedUpstream, buildDist, deleteRedisKeys, startRuntimeProcess } from '@fed/testing';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { CHAT_MODEL, type ChatStack, bootChatStack } from './testing/boot-chat-stack';
import { textAnswer } from './testing/model-answers';

// Distributed mode: chat-service and llm-gateway in this process, agent-runtime in processes of its
// own, all sharing PostgreSQL and Redis. A runtime killed in the middle of a turn must not leave the
// client waiting or the history half-written.
describe('an agent-runtime killed in the middle of a turn', () => {
  const database = useTestDatabase();
  const redisUrl = testServiceUrls().redisUrl;
  const keyPrefix = `test:${randomUUID().slice(0, 8)}:`;
  let upstream: ScriptedUpstream;
  let stack: ChatStack;
  const runtimes: ProcessHandle[] = [];

  beforeAll(async () => {
    buildDist();
    upstream = await ScriptedUpstream.start();
    stack = await bootChatStack(database.url, upstream.url, {
      redis: { url: redisUrl, keyPrefix },
      runtime: false,
      env: { AGENT_STALL_SECONDS: '2' },
    });
  }, 180_000);

  afterAll(async () => {
    for (const runtime of runtimes) {
      runtime.child.kill('SIGKILL');
      await runtime.exited(5000);
    }
    await stack?.close();
    await upstream?.close();
    await deleteRedisKeys(redisUrl, keyPrefix);
  });

  async function startRuntime(): Promise<ProcessHandle> {
    const runtime = await startRuntimeProcess(
      { databaseUrl: database.url, redisUrl, keyPrefix },
      {
        AGENT_GATEWAY_URL: `${stack.service.url}/llm/v1`,
        AGENT_GATEWAY_API_KEY: stack.gatewayKey,
        AGENT_MODEL: 'agent-model',
        AGENT_STALL_SECONDS: '2',
        AGENT_COALESCE_MS: '0',
      },
    );
    runtimes.push(runtime);
    await runtime.waitForOutput(/agent-runtime listening/, 30_000);
    return runtime;
  }

  it('ends the client’s stream with finishReason error and leaves the message unfinished, not processing', async () => {
    const first = await startRuntime();
    // The model answers a first piece, then takes its time.
    upstream.enqueue(textAnswer(['Part one. ', 'Part two.'], 60_000));
    const token = await stack.userToken();
    const response = await fetch(`${stack.api}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: CHAT_MODEL,
        stream: true,
        agentMode: false,
        outputFormat: 'markdown',
        messages: [{ role: 'user', content: 'Write two parts' }],
      }),
    });
    expect(response.status).toBe(200);
    const runId = response.headers.get('x-message-id') as string;
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let received = '';
    const readUntil = async (pattern: RegExp) => {
      while (!pattern.test(received)) {
        const { value, done } = await reader.read();
        if (done) return;
        received += decoder.decode(value, { stream: true });
      }
    };
    await readUntil(/Part one\./);

    first.child.kill('SIGKILL');
    await first.exited(5000);
    // Another runtime is up: the queue hands it the job once the dead one's lock has lapsed.
    await startRuntime();
    const started = Date.now();
    await readUntil(/data: \[DONE\]/);
    expect(Date.now() - started).toBeLessThan(20_000);

    const chunks = received
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map(
        (line) =>
          JSON.parse(line.slice(6)) as {
            choices: { delta: { content?: string }; finishReason: string | null; status?: string }[];
            error?: { code: string };
          },
      );
    const last = chunks.at(-1);
    expect(last?.choices[0]).toMatchObject({ finishReason: 'error', status: 'unfinished' });
    expect(last?.error?.code).toBe('runtime_lost');
    const streamed = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    expect(streamed).toBe('Part one. ');

    const [message] = (await stack.service.nest
      .get(DataSource)
      .query('SELECT "processing", "unfinished", "text" FROM "conversations"."messages" WHERE "id" = $1', [runId])) as {
      processing: boolean;
      unfinished: boolean;
      text: string;
    }[];
    expect(message).toMatchObject({ processing: false, unfinished: true });
    // What was stored is what the client was shown, or the part of it the last heartbeat saved.
    expect(streamed.startsWith(message?.text ?? '')).toBe(true);
  }, 60_000);
});
