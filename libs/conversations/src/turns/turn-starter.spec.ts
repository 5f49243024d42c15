import { MemoryRunQueue, MemoryRunStream, MemorySignals, type RunQueue, STREAM_START } from '@fed/bus';
import { loadConfig } from '@fed/config';
import {
  ApiError,
  CHAT_TURN_DEFAULTS,
  DomainError,
  type ChatCompletionChunk,
  type ChatTurnRequest,
  type RunJob,
  type RunCancelledV1,
} from '@fed/contracts';
import { contextFrom, createLogger, startTracing, stopTracing } from '@fed/observability';
import { context } from '@opentelemetry/api';
import { useTestDatabase } from '@fed/persistence/testing';
import { randomUUID } from 'node:crypto';
import { type ConversationOwner } from '../conversation-owner';
import { ConversationsRepository } from '../conversations/conversations.repository';
import { type TurnCatalog } from './turn-catalog.port';
import { TurnFiles } from './turn-files';
import { NO_LIBRARY } from './turn-library.port';
import { TurnStarter } from './turn-starter';
import { TurnsRepository } from './turns.repository';

// The turn starter as A2A and MCP will use it: an owner and a validated request in, no HTTP anywhere.
describe('turn starter', () => {
  const database = useTestDatabase();
  const config = loadConfig('platform', {}, '/srv/fed');
  const MODEL = config.chat.modelName;
  const KNOWN_SKILLS = new Set(['summarize', 'translate']);
  // The agent catalog's part of the port: unknown skills are dropped, an unknown playbook is refused.
  const catalog: TurnCatalog = {
    resolveForTurn: async ({ playbookId, skillIds }) => {
      if (playbookId !== undefined) throw new ApiError('invalid_parameter', 'playbookId does not exist');
      return { skills: (skillIds ?? []).filter((id) => KNOWN_SKILLS.has(id)).map((id) => ({ id })) };
    },
  };
  let runQueue: MemoryRunQueue;
  let runStream: MemoryRunStream;
  let signals: MemorySignals;
  let starters: TurnStarter[];

  beforeEach(() => {
    runQueue = new MemoryRunQueue();
    runStream = new MemoryRunStream();
    signals = new MemorySignals();
    starters = [];
  });

  afterEach(async () => {
    for (const starter of starters) starter.close();
    await runQueue.close();
    await runStream.close();
    await signals.close();
  });

  function starterWith(queue: RunQueue = runQueue): TurnStarter {
    const starter = new TurnStarter({
      repository: new TurnsRepository(database.dataSource),
      conversations: new ConversationsRepository(database.dataSource),
      catalog,
      files: new TurnFiles(new TurnsRepository(database.dataSource), NO_LIBRARY, 'saas'),
      runQueue: queue,
      runStream,
      signals,
      config,
      logger: createLogger({ service: 'chat-service', level: 'silent' }),
    });
    starters.push(starter);
    return starter;
  }

  const owner = (): ConversationOwner => ({ userId: randomUUID(), tenantId: 'tenant-1' });
  const request = (text = 'Hello', extra: Partial<ChatTurnRequest> = {}): ChatTurnRequest => ({
    text,
    files: [],
    options: { ...CHAT_TURN_DEFAULTS },
    ...extra,
  });

  async function chunks(runId: string): Promise<ChatCompletionChunk[]> {
    const read = await runStream.read(runId, STREAM_START, { blockMs: 1 });
    return read.entries.map((entry) => JSON.parse(entry.data) as ChatCompletionChunk);
  }

  async function message(runId: string): Promise<Record<string, unknown>> {
    const [row] = (await database.dataSource.query(
      `SELECT "processing", "unfinished", "turn_options", "reply_to", "cancel_requested_at"
       FROM "conversations"."messages" WHERE "id" = $1`,
      [runId],
    )) as Record<string, unknown>[];
    return row as Record<string, unknown>;
  }

  async function refusal(work: Promise<unknown>): Promise<string> {
    const error = await work.then(
      () => undefined,
      (failure: unknown) => (failure instanceof DomainError ? failure.toApiError() : failure),
    );
    expect(error).toBeInstanceOf(ApiError);
    return (error as ApiError).code;
  }

  async function waitUntil(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error('condition not met in time');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  describe('start', () => {
    it('admits a turn, writes its role chunk and queues its job, with no HTTP involved', async () => {
      const jobs: RunJob[] = [];
      const consumer = runQueue.consume(async (job) => {
        jobs.push(job);
      });
      const alice = owner();
      const started = await starterWith().start(
        alice,
        request('Plan the trip\nto Kyoto', {
          options: { ...CHAT_TURN_DEFAULTS, agentLevel: 'high_performance', skillIds: ['summarize', 'unknown'] },
        }),
      );

      expect(started).toEqual({
        conversationId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        userMessageId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        runId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        createdConversation: true,
      });
      expect(await chunks(started.runId)).toEqual([
        expect.objectContaining({
          model: MODEL,
          choices: [
            {
              index: 0,
              delta: {
                role: 'assistant',
                messageInfo: { conversationId: started.conversationId, messageId: started.runId },
              },
              finishReason: null,
            },
          ],
        }),
      ]);
      expect(await message(started.runId)).toMatchObject({
        processing: true,
        reply_to: started.userMessageId,
        turn_options: { ...CHAT_TURN_DEFAULTS, agentLevel: 'high_performance', skillIds: ['summarize'] },
      });
      const [conversation] = (await database.dataSource.query(
        `SELECT "title", "user_id", "tenant_id" FROM "conversations"."conversations" WHERE "id" = $1`,
        [started.conversationId],
      )) as Record<string, unknown>[];
      expect(conversation).toEqual({ title: 'Plan the trip', user_id: alice.userId, tenant_id: 'tenant-1' });
      await waitUntil(async () => jobs.length === 1);
      expect(jobs).toEqual([
        {
          version: 1,
          runId: started.runId,
          conversationId: started.conversationId,
          userId: alice.userId,
          tenantId: 'tenant-1',
          requestedAt: expect.any(String),
        },
      ]);
      await consumer.close();
    });

    it('carries the trace of the request that started the turn in its job and beside its role chunk', async () => {
      // Tracing on in this process (nothing exported): a request's trace can then be the active context.
      startTracing('chat-service', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }, { spanProcessors: [] });
      try {
        const jobs: RunJob[] = [];
        const consumer = runQueue.consume(async (job) => {
          jobs.push(job);
        });
        const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
        const requestTrace = contextFrom({ traceparent, tracestate: 'vendor=x' });
        const started = await context.with(requestTrace, () => starterWith().start(owner(), request()));
        await waitUntil(async () => jobs.length === 1);
        expect(jobs[0]).toMatchObject({ runId: started.runId, traceparent, tracestate: 'vendor=x' });
        const [role] = (await runStream.read(started.runId, STREAM_START)).entries;
        expect(role?.trace).toEqual({ traceparent, tracestate: 'vendor=x' });
        expect(role?.data).not.toContain('4bf92f3577b34da6a3ce929d0e0e4736');
        await consumer.close();
      } finally {
        await stopTracing();
        context.disable();
      }
    });

    it('refuses a second turn while the conversation is processing (409), and continues it afterwards', async () => {
      const starter = starterWith();
      const alice = owner();
      const first = await starter.start(alice, request());
      const continued = request('again', { conversationId: first.conversationId });
      expect(await refusal(starter.start(alice, continued))).toBe('conversation_processing');

      await database.dataSource.query(`UPDATE "conversations"."messages" SET "processing" = false WHERE "id" = $1`, [
        first.runId,
      ]);
      const second = await starter.start(alice, continued);
      expect(second).toMatchObject({ conversationId: first.conversationId, createdConversation: false });
    });

    it('answers another owner’s or an unknown conversation 404 and an archived one 400', async () => {
      const starter = starterWith();
      const alice = owner();
      const { conversationId, runId } = await starter.start(alice, request());
      await starter.endStream(runId, 'lost');
      await database.dataSource.query(`UPDATE "conversations"."messages" SET "processing" = false WHERE "id" = $1`, [
        runId,
      ]);
      expect(await refusal(starter.start(owner(), request('x', { conversationId })))).toBe('conversation_not_found');
      expect(await refusal(starter.start(alice, request('x', { conversationId: randomUUID() })))).toBe(
        'conversation_not_found',
      );
      await database.dataSource.query(
        `WITH moved AS (DELETE FROM "conversations"."conversations" WHERE "id" = $1 RETURNING *)
         INSERT INTO "conversations"."archived_conversations"
           SELECT "id", "user_id", "tenant_id", "title", "created_at", "updated_at", now() FROM moved`,
        [conversationId],
      );
      expect(await refusal(starter.start(alice, request('x', { conversationId })))).toBe('conversation_archived');
    });

    it('refuses an input_file that does not exist (404) and an unknown playbook, admitting nothing', async () => {
      const starter = starterWith();
      const alice = owner();
      expect(await refusal(starter.start(alice, request('x', { files: [{ fileId: randomUUID() }] })))).toBe(
        'not_found',
      );
      const withPlaybook = request('x', { options: { ...CHAT_TURN_DEFAULTS, playbookId: 'nope' } });
      expect(await refusal(starter.start(alice, withPlaybook))).toBe('invalid_parameter');
      const rows = (await database.dataSource.query(
        `SELECT 1 FROM "conversations"."conversations" WHERE "user_id" = $1`,
        [alice.userId],
      )) as unknown[];
      expect(rows).toEqual([]);
    });

    it('ends the turn and answers 503 when its job cannot be queued, so the conversation is not left processing', async () => {
      const unreachable: RunQueue = {
        enqueue: () => Promise.reject(new Error('queue unreachable')),
        consume: (handler, options) => runQueue.consume(handler, options),
        pendingCount: () => runQueue.pendingCount(),
        stats: () => runQueue.stats(),
        close: () => runQueue.close(),
      };
      const alice = owner();
      const conversationId = (await starterWith().start(alice, request())).conversationId;
      const [{ id: firstRun }] = (await database.dataSource.query(
        `SELECT "id" FROM "conversations"."messages" WHERE "conversation_id" = $1 AND "processing"`,
        [conversationId],
      )) as { id: string }[];
      await database.dataSource.query(`UPDATE "conversations"."messages" SET "processing" = false WHERE "id" = $1`, [
        firstRun,
      ]);

      const failing = starterWith(unreachable);
      expect(await refusal(failing.start(alice, request('x', { conversationId })))).toBe('service_unavailable');
      const processing = (await database.dataSource.query(
        `SELECT 1 FROM "conversations"."messages" WHERE "conversation_id" = $1 AND "processing"`,
        [conversationId],
      )) as unknown[];
      expect(processing).toEqual([]);
    });
  });

  describe('current', () => {
    it('gives the run of the turn in progress; 404 once it ended or for another owner', async () => {
      const starter = starterWith();
      const alice = owner();
      const { conversationId, runId } = await starter.start(alice, request());
      expect(await starter.current(alice, conversationId)).toEqual({ conversationId, runId });
      expect(await refusal(starter.current(owner(), conversationId))).toBe('conversation_not_found');

      await database.dataSource.query(`UPDATE "conversations"."messages" SET "processing" = false WHERE "id" = $1`, [
        runId,
      ]);
      expect(await refusal(starter.current(alice, conversationId))).toBe('not_found');
    });
  });

  describe('cancel', () => {
    it('signals the runtime, records the request, and ends a turn no runtime took with stop / unfinished', async () => {
      const starter = starterWith();
      const alice = owner();
      const { conversationId, runId } = await starter.start(alice, request());
      const signalled: RunCancelledV1[] = [];
      const subscription = await signals.subscribe('run.cancelled', (signal) => {
        signalled.push(signal);
      });

      expect(await starter.cancel(alice, conversationId)).toEqual({ conversationId, cancelled: true });
      expect((await message(runId)).cancel_requested_at).toBeInstanceOf(Date);
      await waitUntil(async () => signalled.length > 0);
      expect(signalled).toEqual([{ version: 1, conversationId, runId }]);

      await waitUntil(async () => (await runStream.state(runId)) === 'ended');
      const last = (await chunks(runId)).at(-1);
      expect(last?.choices[0]).toMatchObject({ finishReason: 'stop', status: 'unfinished' });
      expect(await message(runId)).toMatchObject({ processing: false, unfinished: true });
      await subscription.unsubscribe();
    });

    it('leaves a turn whose runtime reports to the runtime, and cancels only the message named', async () => {
      const starter = starterWith();
      const alice = owner();
      const { conversationId, runId } = await starter.start(alice, request());
      await database.dataSource.query(`UPDATE "conversations"."messages" SET "heartbeat_at" = now() WHERE "id" = $1`, [
        runId,
      ]);
      expect(await refusal(starter.cancel(alice, conversationId, randomUUID()))).toBe('not_found');
      expect((await message(runId)).cancel_requested_at).toBeNull();

      expect(await starter.cancel(alice, conversationId, runId)).toEqual({ conversationId, cancelled: true });
      await new Promise((resolve) => setTimeout(resolve, 2000));
      expect(await runStream.state(runId)).toBe('open');
      expect(await message(runId)).toMatchObject({ processing: true, cancel_requested_at: expect.any(Date) });
    });

    it('answers cancelled with nothing in progress; 404 for another owner, 400 for an archived conversation', async () => {
      const starter = starterWith();
      const alice = owner();
      const { conversationId, runId } = await starter.start(alice, request());
      await database.dataSource.query(`UPDATE "conversations"."messages" SET "processing" = false WHERE "id" = $1`, [
        runId,
      ]);
      expect(await starter.cancel(alice, conversationId)).toEqual({ conversationId, cancelled: true });
      expect(await refusal(starter.cancel(owner(), conversationId))).toBe('conversation_not_found');
      await database.dataSource.query(
        `WITH moved AS (DELETE FROM "conversations"."conversations" WHERE "id" = $1 RETURNING *)
         INSERT INTO "conversations"."archived_conversations"
           SELECT "id", "user_id", "tenant_id", "title", "created_at", "updated_at", now() FROM moved`,
        [conversationId],
      );
      expect(await refusal(starter.cancel(alice, conversationId))).toBe('conversation_archived');
    });
  });

  it('ends a lost turn’s stream with the runtime_lost error chunk', async () => {
    const starter = starterWith();
    const { runId } = await starter.start(owner(), request());
    await starter.endStream(runId, 'lost');
    expect(await runStream.state(runId)).toBe('ended');
    expect((await chunks(runId)).at(-1)).toMatchObject({
      choices: [{ finishReason: 'error', status: 'unfinished' }],
      error: { code: 'runtime_lost' },
    });
  });
});
