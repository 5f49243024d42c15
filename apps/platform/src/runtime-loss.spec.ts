import { testServiceUrls } from '@fed/config';
import { useTestDatabase } from '@fed/persistence/testing';
import {
  MetricsScrape,
  type ProcessHandle,
  ScriptedUpstream,
  TcpProxy,
  buildDist,
  deleteRedisKeys,
  startRuntimeProcess,
} from '@fed/testing';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { CHAT_MODEL, type ChatStack, bootChatStack } from './testing/boot-chat-stack';
import { textAnswer } from './testing/model-answers';

interface StreamedChunk {
  choices: { delta: { content?: string }; finishReason: string | null; status?: string }[];
  error?: { code: string };
}

/** A chat request streaming its answer: read it up to a pattern, then look at what came. */
interface OpenTurn {
  runId: string;
  readUntil(pattern: RegExp): Promise<void>;
  chunks(): StreamedChunk[];
  streamed(): string;
}

// Distributed mode: chat-service and llm-gateway in this process, agent-runtime in processes of its
// own (as built in dist/), all sharing PostgreSQL and Redis. A rollout (SIGTERM) loses no answer; a crash
// (kill -9) ends the turn in seconds, never half-written; a Redis that does not answer for a while pauses
// the turn without cutting it.
describe('agent-runtime stopped or killed in the middle of a turn', () => {
  const database = useTestDatabase();
  const redisUrl = testServiceUrls().redisUrl;
  const keyPrefix = `test:${randomUUID().slice(0, 8)}:`;
  let upstream: ScriptedUpstream;
  let stack: ChatStack;
  const runtimes: ProcessHandle[] = [];

  beforeAll(async () => {
    buildDist();
    upstream = await ScriptedUpstream.start();
    stack = await bootChatStack(database.url, upstream.url, { redis: { url: redisUrl, keyPrefix }, runtime: false });
  }, 180_000);

  afterEach(async () => {
    for (const runtime of runtimes.splice(0)) {
      runtime.child.kill('SIGKILL');
      await runtime.exited(5000);
    }
    upstream.reset();
  });

  afterAll(async () => {
    await stack?.close();
    await upstream?.close();
    await deleteRedisKeys(redisUrl, keyPrefix);
  });

  async function startRuntime(env: Record<string, string> = {}, redis = redisUrl): Promise<ProcessHandle> {
    const runtime = await startRuntimeProcess(
      { databaseUrl: database.url, redisUrl: redis, keyPrefix },
      {
        AGENT_GATEWAY_URL: `${stack.service.url}/llm/v1`,
        AGENT_GATEWAY_API_KEY: stack.gatewayKey,
        AGENT_MODEL: 'agent-model',
        AGENT_COALESCE_MS: '0',
        ...env,
      },
    );
    runtimes.push(runtime);
    await runtime.waitForOutput(/agent-runtime listening/, 30_000);
    return runtime;
  }

  async function openTurn(prompt: string): Promise<OpenTurn> {
    const token = await stack.userToken();
    const response = await fetch(`${stack.api}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: CHAT_MODEL,
        stream: true,
        agentMode: false,
        outputFormat: 'markdown',
        messages: [{ role: 'user', content: prompt }],
      }),
    });
    expect(response.status).toBe(200);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let received = '';
    const chunks = () =>
      received
        .split('\n')
        .filter((line) => line.startsWith('data: {'))
        .map((line) => JSON.parse(line.slice(6)) as StreamedChunk);
    return {
      runId: response.headers.get('x-message-id') as string,
      readUntil: async (pattern) => {
        while (!pattern.test(received)) {
          const { value, done } = await reader.read();
          if (done) return;
          received += decoder.decode(value, { stream: true });
        }
      },
      chunks,
      streamed: () =>
        chunks()
          .map((chunk) => chunk.choices[0]?.delta.content ?? '')
          .join(''),
    };
  }

  async function storedMessage(runId: string) {
    const [message] = (await stack.service.nest
      .get(DataSource)
      .query('SELECT "processing", "unfinished", "text" FROM "conversations"."messages" WHERE "id" = $1', [runId])) as {
      processing: boolean;
      unfinished: boolean;
      text: string;
    }[];
    return message;
  }

  it('SIGTERM: the runtime finishes the turn it runs (the answer ends normally), then exits 0', async () => {
    const stopping = await startRuntime();
    upstream.enqueue(textAnswer(['Part one. ', 'Part two. ', 'Part three.'], 700));
    const turn = await openTurn('Write three parts');
    await turn.readUntil(/Part one\./);
    // The queue as this chat-service sees it: one runtime connected, running the one turn.
    const queue = await MetricsScrape.of(stack.service.url);
    expect(queue.sum('run_queue_consumers')).toBe(1);
    expect(queue.sum('run_queue_jobs', { state: 'active' })).toBe(1);
    expect(queue.sum('run_queue_jobs', { state: 'waiting' })).toBe(0);
    expect(queue.sum('run_queue_oldest_job_age_seconds')).toBe(0);

    stopping.child.kill('SIGTERM');
    await turn.readUntil(/data: \[DONE\]/);
    expect(await stopping.exited(15_000)).toBe(0);

    expect(turn.streamed()).toBe('Part one. Part two. Part three.');
    const last = turn.chunks().at(-1);
    expect(last?.choices[0]).toMatchObject({ finishReason: 'stop' });
    expect(last?.choices[0]?.status).toBeUndefined();
    expect(last?.error).toBeUndefined();
    expect(await storedMessage(turn.runId)).toMatchObject({
      processing: false,
      unfinished: false,
      text: 'Part one. Part two. Part three.',
    });
    expect(stopping.output()).toMatch(/agent runtime draining/);
  }, 60_000);

  it('SIGTERM: a turn still running at the drain deadline is handed back, and the next runtime ends it with runtime_lost', async () => {
    const stopping = await startRuntime({ AGENT_DRAIN_SECONDS: '1' });
    // The model answers a first piece, then takes its time.
    upstream.enqueue(textAnswer(['Part one. ', 'Part two.'], 60_000));
    const turn = await openTurn('Write two parts');
    await turn.readUntil(/Part one\./);
    await startRuntime();

    stopping.child.kill('SIGTERM');
    await turn.readUntil(/data: \[DONE\]/);
    expect(await stopping.exited(15_000)).toBe(0);
    expect(stopping.output()).toMatch(/handing its running turns back/);

    const last = turn.chunks().at(-1);
    expect(last?.choices[0]).toMatchObject({ finishReason: 'error', status: 'unfinished' });
    expect(last?.error?.code).toBe('runtime_lost');
    expect(turn.streamed()).toBe('Part one. ');
    expect(await storedMessage(turn.runId)).toMatchObject({ processing: false, unfinished: true, text: 'Part one. ' });
  }, 60_000);

  it('kill -9: another runtime already running takes the turn once the lock lapsed and ends it (runtime_lost), the message unfinished, not processing', async () => {
    // The shortest stall time, so the test waits about 2 s for the lock to lapse (docs/reliability.md has the
    // times measured with the default).
    const fastStall = { AGENT_STALL_SECONDS: '2' };
    const killed = await startRuntime(fastStall);
    upstream.enqueue(textAnswer(['Part one. ', 'Part two.'], 60_000));
    const turn = await openTurn('Write two parts');
    await turn.readUntil(/Part one\./);
    const survivor = await startRuntime(fastStall);

    killed.child.kill('SIGKILL');
    await killed.exited(5000);
    await turn.readUntil(/data: \[DONE\]/);
    // The end was written by the runtime that took the job over (chat-service's reaper would take 30 s).
    await survivor.waitForOutput(new RegExp(`${turn.runId}.*interrupted after showing output`), 5000);

    const last = turn.chunks().at(-1);
    expect(last?.choices[0]).toMatchObject({ finishReason: 'error', status: 'unfinished' });
    expect(last?.error?.code).toBe('runtime_lost');
    const streamed = turn.streamed();
    expect(streamed).toBe('Part one. ');
    const message = await storedMessage(turn.runId);
    expect(message).toMatchObject({ processing: false, unfinished: true });
    // What was stored is what the client was shown, or the part of it the last heartbeat saved.
    expect(streamed.startsWith(message?.text ?? '')).toBe(true);
  }, 60_000);

  it('a runtime whose Redis does not answer for less than the stall time pauses its turn and then finishes it: every piece once, no runtime_lost', async () => {
    const proxy = await TcpProxy.start(redisUrl);
    try {
      // Pauses after half of it without a confirmed renewal, gives up after all of it.
      const stall = { AGENT_STALL_SECONDS: '6' };
      const slowed = await startRuntime(stall, proxy.url);
      const pieces = ['Part one. ', 'Part two. ', 'Part three. ', 'Part four.'];
      upstream.enqueue(textAnswer(pieces, 500));
      const turn = await openTurn('Write four parts');
      await turn.readUntil(/Part one\./);

      // Nothing the runtime sends to Redis arrives, nothing comes back; it cannot end the turn meanwhile (its
      // appends wait). Had its lock lapsed, the job would go back to the queue and to this very runtime
      // again, which would end the turn with runtime_lost.
      proxy.pause();
      await slowed.waitForOutput(new RegExp(`${turn.runId}.*agent turn paused`), 30_000);
      proxy.resume();
      await turn.readUntil(/data: \[DONE\]/);

      expect(turn.streamed()).toBe(pieces.join(''));
      const last = turn.chunks().at(-1);
      expect(last?.choices[0]).toMatchObject({ finishReason: 'stop' });
      expect(last?.choices[0]?.status).toBeUndefined();
      expect(last?.error).toBeUndefined();
      expect(await storedMessage(turn.runId)).toMatchObject({
        processing: false,
        unfinished: false,
        text: pieces.join(''),
      });
      expect(slowed.output()).toMatch(new RegExp(`${turn.runId}.*agent turn resumed`));
      expect(slowed.output()).not.toMatch(/lost its hold|left to another runtime|interrupted after showing output/);
    } finally {
      await proxy.close();
    }
  }, 60_000);
});
