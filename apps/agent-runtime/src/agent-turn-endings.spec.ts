import type { ChatCompletionChunk } from '@fed/contracts';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { MetricsScrape, ScriptedUpstream, type SseStep } from '@fed/testing';
import { type RunningAgentRuntime, bootAgentRuntime } from './testing/boot-agent-runtime';
import { stalledAnswer, textAnswer, toolCallAnswer } from './testing/model-answers';
import {
  type AdmittedTestTurn,
  type TurnSetup,
  readToEnd,
  readUntil,
  sql,
  startTurn,
  storedMessage,
  streamedText,
} from './testing/turn-fixture';

const TURN_TIMEOUT_MS = 3000;
const STALL_MS = 600;

const finalOf = (chunks: readonly ChatCompletionChunk[]) => chunks.at(-1) as ChatCompletionChunk;
const hasContent = (chunk: ChatCompletionChunk) => (chunk.choices[0].delta.content ?? '').length > 0;

/** How turns end other than by answering: cancel, failures, timeout, runtime loss, turns no longer running. */
describe('agent runtime: ending turns', () => {
  let database: TestDatabase;
  let upstream: ScriptedUpstream;
  let runtime: RunningAgentRuntime;

  beforeAll(async () => {
    database = await createTestDatabase();
    upstream = await ScriptedUpstream.start();
    runtime = await bootAgentRuntime({
      databaseUrl: database.url,
      upstreamUrl: upstream.url,
      agent: { turnTimeoutMs: TURN_TIMEOUT_MS, stallMs: STALL_MS },
    });
  });

  afterAll(async () => {
    await runtime?.close();
    await upstream?.close();
    await database?.drop();
  });

  beforeEach(() => upstream.reset());

  const stream = () => runtime.service.bus.runStream;
  const cancel = (turn: AdmittedTestTurn, withRunId = true) =>
    runtime.service.bus.signals.publish('run.cancelled', {
      version: 1,
      conversationId: turn.conversationId,
      ...(withRunId ? { runId: turn.runId } : {}),
    });

  describe('cancel', () => {
    it('run.cancelled ends the turn within a second: the model call aborted, the partial text stored unfinished, final chunk stop', async () => {
      upstream.enqueue(stalledAnswer(['Partial ', 'answer']));
      const turn = await startTurn(runtime, { text: 'Long task', options: { outputFormat: 'markdown' } });
      await readUntil(stream(), turn.runId, (chunk) => (chunk.choices[0].delta.content ?? '').includes('answer'));

      const cancelledAt = Date.now();
      await cancel(turn);
      const chunks = await readToEnd(stream(), turn.runId);
      expect(Date.now() - cancelledAt).toBeLessThan(1000);

      expect(finalOf(chunks).choices[0]).toMatchObject({ finishReason: 'stop', status: 'unfinished' });
      expect(finalOf(chunks).error).toBeUndefined();
      expect(streamedText(chunks)).toBe('Partial answer');
      expect(await storedMessage(runtime, turn.runId)).toMatchObject({
        text: 'Partial answer',
        processing: false,
        unfinished: true,
      });
      await upstream.waitForAbort(2000);
    });

    it('stores exactly what was streamed when plain output held back an unfinished line', async () => {
      upstream.enqueue(stalledAnswer(['A **partial', '** line']));
      const turn = await startTurn(runtime, { text: 'Long task', options: { outputFormat: 'plain' } });
      await upstream.waitForRequests(1);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await cancel(turn);
      const chunks = await readToEnd(stream(), turn.runId);
      expect(streamedText(chunks)).toBe('A partial line');
      expect((await storedMessage(runtime, turn.runId)).text).toBe('A partial line');
    });

    it('run.cancelled without a run id stops the running turn of the conversation', async () => {
      upstream.enqueue(stalledAnswer(['Working']));
      const turn = await startTurn(runtime, { text: 'Long task', options: { outputFormat: 'markdown' } });
      await readUntil(stream(), turn.runId, hasContent);
      await cancel(turn, false);
      const chunks = await readToEnd(stream(), turn.runId, 2000);
      expect(finalOf(chunks).choices[0]).toMatchObject({ finishReason: 'stop', status: 'unfinished' });
    });

    it('a turn whose cancel was requested before it started ends at once, unfinished, without calling the model', async () => {
      const turn = await startTurn(runtime, {
        text: 'Never mind',
        beforeEnqueue: async (admitted) => {
          await sql(runtime, `UPDATE "conversations"."messages" SET "cancel_requested_at" = now() WHERE "id" = $1`, [
            admitted.runId,
          ]);
        },
      });
      const chunks = await readToEnd(stream(), turn.runId);
      expect(chunks).toHaveLength(2);
      expect(finalOf(chunks).choices[0]).toMatchObject({ finishReason: 'stop', status: 'unfinished' });
      expect(upstream.requests).toHaveLength(0);
      expect(await storedMessage(runtime, turn.runId)).toMatchObject({ processing: false, unfinished: true });
    });

    it('a cancel whose signal was lost is found by the heartbeat (cancel_requested_at is the state of record)', async () => {
      upstream.enqueue(stalledAnswer(['Working']));
      const turn = await startTurn(runtime, { text: 'Long task', options: { outputFormat: 'markdown' } });
      await readUntil(stream(), turn.runId, hasContent);
      await sql(runtime, `UPDATE "conversations"."messages" SET "cancel_requested_at" = now() WHERE "id" = $1`, [
        turn.runId,
      ]);
      const chunks = await readToEnd(stream(), turn.runId, STALL_MS);
      expect(finalOf(chunks).choices[0]).toMatchObject({ finishReason: 'stop', status: 'unfinished' });
      expect((await storedMessage(runtime, turn.runId)).text).toBe('Working');
    });
  });

  describe('metrics', () => {
    it('counts every ended turn by outcome, with its duration, on /metrics', async () => {
      const before = await MetricsScrape.of(runtime.service.url);
      upstream.enqueue(textAnswer(['Done.']));
      await readToEnd(stream(), (await startTurn(runtime, { text: 'Answer me' })).runId);
      const cancelled = await startTurn(runtime, {
        text: 'Never mind',
        beforeEnqueue: async (admitted) => {
          await sql(runtime, `UPDATE "conversations"."messages" SET "cancel_requested_at" = now() WHERE "id" = $1`, [
            admitted.runId,
          ]);
        },
      });
      await readToEnd(stream(), cancelled.runId);
      upstream.enqueue({ kind: 'status', status: 500 });
      await readToEnd(stream(), (await startTurn(runtime, { text: 'Fail' })).runId);
      const search = (id: string) => toolCallAnswer([{ id, name: 'search_memory', arguments: { query: id } }]);
      upstream.enqueue(search('s1'), search('s2'), search('s3'), search('s4'));
      await readToEnd(stream(), (await startTurn(runtime, { text: 'Loop forever' })).runId);

      // The stream ends after the ledger; the count follows at once, but on the runtime's side.
      const outcomes = ['completed', 'cancelled', 'error', 'unfinished'];
      const added = (scrape: MetricsScrape, name: string, outcome: string) =>
        scrape.sum(name, { outcome }) - before.sum(name, { outcome });
      let after = await MetricsScrape.of(runtime.service.url);
      while (outcomes.some((outcome) => added(after, 'agent_turns_total', outcome) === 0)) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        after = await MetricsScrape.of(runtime.service.url);
      }
      for (const outcome of outcomes) {
        expect([outcome, added(after, 'agent_turns_total', outcome)]).toEqual([outcome, 1]);
        expect([outcome, added(after, 'agent_turn_duration_seconds_count', outcome)]).toEqual([outcome, 1]);
      }
      expect(after.find('agent_turns_total', { outcome: 'completed' })[0]?.labels.service).toBe('agent-runtime');
    });
  });

  describe('failures', () => {
    it('a model failure (the provider answers 500) ends the turn unfinished with error chunk model_unavailable', async () => {
      upstream.enqueue({ kind: 'status', status: 500 });
      const turn = await startTurn(runtime, { text: 'Hello' });
      const chunks = await readToEnd(stream(), turn.runId);
      const last = finalOf(chunks);
      expect(last.choices[0]).toMatchObject({ finishReason: 'error', status: 'unfinished' });
      expect(last.error?.code).toBe('model_unavailable');
      expect(last.error?.message).toContain('502');
      expect(await storedMessage(runtime, turn.runId)).toMatchObject({ processing: false, unfinished: true });
    });

    it('a request the model refuses (400) ends the turn with error chunk agent_failed', async () => {
      upstream.enqueue({ kind: 'status', status: 400 });
      const turn = await startTurn(runtime, { text: 'Hello' });
      const last = finalOf(await readToEnd(stream(), turn.runId));
      expect(last.error?.code).toBe('agent_failed');
    });

    it('an answer that breaks off keeps the partial text and ends with model_unavailable', async () => {
      const broken = textAnswer(['Half an ', 'answer']);
      const step: SseStep = { ...broken, events: [...broken.events.slice(0, 3), { hangUp: true }] };
      upstream.enqueue(step);
      const turn = await startTurn(runtime, { text: 'Hello' });
      const chunks = await readToEnd(stream(), turn.runId);
      expect(finalOf(chunks).error?.code).toBe('model_unavailable');
      expect(streamedText(chunks)).toBe('Half an answer');
      expect(await storedMessage(runtime, turn.runId)).toMatchObject({
        text: 'Half an answer',
        processing: false,
        unfinished: true,
      });
    });

    it('the turn timeout ends the turn unfinished with error chunk turn_timeout', async () => {
      upstream.enqueue(stalledAnswer(['Thinking']));
      const startedAt = Date.now();
      const turn = await startTurn(runtime, { text: 'Slow', options: { outputFormat: 'markdown' } });
      const chunks = await readToEnd(stream(), turn.runId, TURN_TIMEOUT_MS + 3000);
      const elapsed = Date.now() - startedAt;
      expect(elapsed).toBeGreaterThanOrEqual(TURN_TIMEOUT_MS - 100);
      expect(elapsed).toBeLessThan(TURN_TIMEOUT_MS + 1500);
      expect(finalOf(chunks)).toMatchObject({
        choices: [{ finishReason: 'error', status: 'unfinished' }],
        error: { code: 'turn_timeout' },
      });
      expect(await storedMessage(runtime, turn.runId)).toMatchObject({ text: 'Thinking', unfinished: true });
    });
  });

  describe('the ledger', () => {
    it('no longer shows the turn processing by the time the final chunk is in the stream', async () => {
      for (let i = 0; i < 5; i++) {
        upstream.enqueue(textAnswer([`Answer ${i}`]));
        const turn = await startTurn(runtime, { text: `Question ${i}` });
        await readUntil(stream(), turn.runId, (chunk) => chunk.choices[0].finishReason !== null);
        expect((await storedMessage(runtime, turn.runId)).processing).toBe(false);
      }
    });

    it('heartbeats store the text shown so far while the turn runs', async () => {
      upstream.enqueue(stalledAnswer(['Shown ', 'so far']));
      const turn = await startTurn(runtime, { text: 'Long task', options: { outputFormat: 'markdown' } });
      await readUntil(stream(), turn.runId, (chunk) => (chunk.choices[0].delta.content ?? '').includes('so far'));
      const claimedAt = (await storedMessage(runtime, turn.runId)).heartbeat_at as Date;
      await new Promise((resolve) => setTimeout(resolve, STALL_MS / 3 + 150));
      const running = await storedMessage(runtime, turn.runId);
      expect(running).toMatchObject({ text: 'Shown so far', processing: true });
      expect((running.heartbeat_at as Date).getTime()).toBeGreaterThan(claimedAt.getTime());
      await cancel(turn);
      await readToEnd(stream(), turn.runId);
    });

    it('skips a turn that is no longer processing: no model call, the stream left alone', async () => {
      const setup: TurnSetup = {
        text: 'Too late',
        beforeEnqueue: async (admitted) => {
          await sql(runtime, `UPDATE "conversations"."messages" SET "processing" = false WHERE "id" = $1`, [
            admitted.runId,
          ]);
        },
      };
      const turn = await startTurn(runtime, setup);
      const until = Date.now() + 5000;
      while ((await runtime.service.bus.runQueue.pendingCount()) > 0 && Date.now() < until) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(await runtime.service.bus.runQueue.pendingCount()).toBe(0);
      expect(upstream.requests).toHaveLength(0);
      expect(await stream().state(turn.runId)).toBe('open');
      expect((await stream().read(turn.runId, '0')).entries).toHaveLength(1);
    });

    it('a second attempt after output was shown ends the turn with runtime_lost, keeping the stored text', async () => {
      const shown = 'Shown before the crash';
      const turn = await startTurn(runtime, {
        text: 'Crash',
        beforeEnqueue: async (admitted) => {
          const chunk: ChatCompletionChunk = {
            createdAt: new Date().toISOString(),
            model: runtime.config.chat.modelName,
            choices: [{ index: 0, delta: { content: shown }, finishReason: null }],
          };
          await stream().append(admitted.runId, JSON.stringify(chunk));
          await sql(runtime, `UPDATE "conversations"."messages" SET "text" = $2 WHERE "id" = $1`, [
            admitted.runId,
            shown,
          ]);
        },
      });
      const chunks = await readToEnd(stream(), turn.runId);
      expect(chunks).toHaveLength(3);
      expect(finalOf(chunks)).toMatchObject({
        choices: [{ finishReason: 'error', status: 'unfinished' }],
        error: { code: 'runtime_lost' },
      });
      expect(upstream.requests).toHaveLength(0);
      expect(await storedMessage(runtime, turn.runId)).toMatchObject({
        text: shown,
        processing: false,
        unfinished: true,
      });
    });
  });
});

describe('agent runtime without model gateway credentials', () => {
  let database: TestDatabase;
  let upstream: ScriptedUpstream;
  let runtime: RunningAgentRuntime;

  beforeAll(async () => {
    database = await createTestDatabase();
    upstream = await ScriptedUpstream.start();
    runtime = await bootAgentRuntime({
      databaseUrl: database.url,
      upstreamUrl: upstream.url,
      agent: { gatewayApiKey: undefined, clientId: undefined, clientSecret: undefined },
    });
  });

  afterAll(async () => {
    await runtime?.close();
    await upstream?.close();
    await database?.drop();
  });

  it('ends every turn with error chunk model_unavailable', async () => {
    const turn = await startTurn(runtime, { text: 'Hello' });
    const chunks = await readToEnd(runtime.service.bus.runStream, turn.runId);
    expect(finalOf(chunks).error?.code).toBe('model_unavailable');
    expect(upstream.requests).toHaveLength(0);
    expect(await storedMessage(runtime, turn.runId)).toMatchObject({ processing: false, unfinished: true });
  });
});

// A runtime told to stop (SIGTERM) drains before its host stops serving HTTP: the gateway beside it (as in
// platform) still answers the running turns' model calls.
describe('agent runtime shutting down', () => {
  let database: TestDatabase;
  let upstream: ScriptedUpstream;
  let runtime: RunningAgentRuntime | undefined;

  beforeAll(async () => {
    database = await createTestDatabase();
    upstream = await ScriptedUpstream.start();
  });

  afterEach(async () => {
    await runtime?.close();
    runtime = undefined;
    upstream.reset();
  });

  afterAll(async () => {
    await upstream?.close();
    await database?.drop();
  });

  async function boot(drainMs: number, env: Record<string, string> = {}): Promise<RunningAgentRuntime> {
    runtime = await bootAgentRuntime({ databaseUrl: database.url, upstreamUrl: upstream.url, agent: { drainMs }, env });
    return runtime;
  }

  const stored = async (runId: string) =>
    (
      (await database.dataSource.query(
        `SELECT "text", "processing", "unfinished", "heartbeat_at" IS NOT NULL AS "claimed"
         FROM "conversations"."messages" WHERE "id" = $1`,
        [runId],
      )) as { text: string; processing: boolean; unfinished: boolean; claimed: boolean }[]
    )[0];

  const showed = (runtime: RunningAgentRuntime, runId: string, text: string) =>
    readUntil(runtime.service.bus.runStream, runId, (chunk) => (chunk.choices[0].delta.content ?? '').includes(text));

  it('lets a running turn finish before it stops, and takes no new one meanwhile', async () => {
    const draining = await boot(20_000);
    upstream.enqueue(textAnswer(['Begun ', 'and ', 'finished'], { pauseMs: 300 }));
    const turn = await startTurn(draining, { text: 'Long task', options: { outputFormat: 'markdown' } });
    await showed(draining, turn.runId, 'Begun');

    const stopping = draining.close();
    const queuedMeanwhile = await startTurn(draining, { text: 'Another task' });
    const chunks = await readToEnd(draining.service.bus.runStream, turn.runId);
    await stopping;

    expect(streamedText(chunks)).toBe('Begun and finished');
    expect(finalOf(chunks).choices[0]).toMatchObject({ finishReason: 'stop' });
    expect(finalOf(chunks).choices[0].status).toBeUndefined();
    expect(await stored(turn.runId)).toMatchObject({
      text: 'Begun and finished',
      processing: false,
      unfinished: false,
    });
    // Queued while draining: left in the queue for another runtime, never claimed here.
    expect(await stored(queuedMeanwhile.runId)).toMatchObject({ processing: true, claimed: false });
    expect(upstream.requests).toHaveLength(1);
  });

  it('hands a turn still running at the drain deadline back: it stays processing with the text it had shown, for the next attempt to end', async () => {
    // Open requests may take 10 minutes to end: the close returning within the test's timeout shows that the
    // turn's own model call (through the gateway beside it) ended with the hand-back, and did not hold it.
    const draining = await boot(300, { SHUTDOWN_TIMEOUT_SECONDS: '600' });
    upstream.enqueue(stalledAnswer(['Shown ', 'before stopping']));
    const turn = await startTurn(draining, { text: 'Long task', options: { outputFormat: 'markdown' } });
    await showed(draining, turn.runId, 'stopping');
    await draining.close();
    await upstream.waitForAbort(2000);
    expect(await stored(turn.runId)).toMatchObject({
      text: 'Shown before stopping',
      processing: true,
      unfinished: false,
    });
  });

  it('hands running turns back at once on a second signal (hurry)', async () => {
    const draining = await boot(600_000);
    upstream.enqueue(stalledAnswer(['Shown ', 'before hurrying']));
    const turn = await startTurn(draining, { text: 'Long task', options: { outputFormat: 'markdown' } });
    await showed(draining, turn.runId, 'hurrying');
    const stopping = draining.close();
    // Nothing to hurry before the drain began, nor once it is over.
    await eventuallyTrue(() => draining.service.hurry());
    await stopping;
    expect(draining.service.hurry()).toBe(false);
    expect(await stored(turn.runId)).toMatchObject({ text: 'Shown before hurrying', processing: true });
  });

  it('still ends a draining turn on cancel', async () => {
    const draining = await boot(600_000);
    upstream.enqueue(stalledAnswer(['Partial ', 'answer']));
    const turn = await startTurn(draining, { text: 'Long task', options: { outputFormat: 'markdown' } });
    await showed(draining, turn.runId, 'answer');
    const stopping = draining.close();
    await draining.service.bus.signals.publish('run.cancelled', {
      version: 1,
      conversationId: turn.conversationId,
      runId: turn.runId,
    });
    const chunks = await readToEnd(draining.service.bus.runStream, turn.runId);
    await stopping;
    expect(finalOf(chunks).choices[0]).toMatchObject({ finishReason: 'stop', status: 'unfinished' });
    expect(await stored(turn.runId)).toMatchObject({ text: 'Partial answer', processing: false, unfinished: true });
  });
});

/** Polls `check` every 10 ms until it holds (the test's timeout fails it otherwise). */
async function eventuallyTrue(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 10));
}
