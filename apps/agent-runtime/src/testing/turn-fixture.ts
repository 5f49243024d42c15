import { type RunStream, STREAM_START } from '@fed/bus';
import { type ChatCompletionChunk, type RunJobV1, roleChunk } from '@fed/contracts';
import { DEFAULT_TURN_OPTIONS, type MessageFile, type TurnOptions } from '@fed/conversations';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import type { RunningAgentRuntime } from './boot-agent-runtime';

export interface TurnSetup {
  /** Continue this conversation (created by an earlier turn); omitted: a new one. */
  conversationId?: string;
  userId?: string;
  tenantId?: string | null;
  text: string;
  files?: MessageFile[];
  options?: Partial<TurnOptions>;
  /** Before the job is enqueued (an earlier attempt's chunks, a cancel): the turn is admitted, not yet queued. */
  beforeEnqueue?: (turn: AdmittedTestTurn) => Promise<void>;
}

export interface AdmittedTestTurn {
  conversationId: string;
  userMessageId: string;
  runId: string;
  userId: string;
  tenantId: string | null;
}

/** Admits a turn as chat-service does: conversation, both messages, the role chunk, then the queued job. */
export async function startTurn(runtime: RunningAgentRuntime, setup: TurnSetup): Promise<AdmittedTestTurn> {
  const dataSource = runtime.service.nest.get(DataSource);
  const userId = setup.userId ?? 'user-1';
  const tenantId = setup.tenantId === undefined ? 'tenant-1' : setup.tenantId;
  const conversationId = setup.conversationId ?? randomUUID();
  const turn: AdmittedTestTurn = { conversationId, userMessageId: randomUUID(), runId: randomUUID(), userId, tenantId };
  await dataSource.transaction(async (manager) => {
    if (!setup.conversationId) {
      await manager.query(
        `INSERT INTO "conversations"."conversations" ("id", "user_id", "tenant_id", "title", "created_at", "updated_at")
         VALUES ($1, $2, $3, $4, now(), now())`,
        [conversationId, userId, tenantId, setup.text.slice(0, 50) || 'New conversation'],
      );
    }
    await manager.query(
      `INSERT INTO "conversations"."messages"
         ("id", "conversation_id", "user_id", "tenant_id", "sender", "text", "files", "created_at", "updated_at")
       VALUES ($1, $2, $3, $4, 'User', $5, $6, now(), now())`,
      [
        turn.userMessageId,
        conversationId,
        userId,
        tenantId,
        setup.text,
        setup.files?.length ? JSON.stringify(setup.files) : null,
      ],
    );
    await manager.query(
      `INSERT INTO "conversations"."messages"
         ("id", "conversation_id", "user_id", "tenant_id", "sender", "text", "processing", "turn_options", "reply_to",
          "created_at", "updated_at")
       VALUES ($1, $2, $3, $4, 'AI', '', true, $5, $6, now(), now())`,
      [
        turn.runId,
        conversationId,
        userId,
        tenantId,
        JSON.stringify({ ...DEFAULT_TURN_OPTIONS, ...setup.options }),
        turn.userMessageId,
      ],
    );
  });
  const { runStream, runQueue } = runtime.service.bus;
  await runStream.append(
    turn.runId,
    JSON.stringify(roleChunk(runtime.config.chat.modelName, conversationId, turn.runId)),
  );
  await setup.beforeEnqueue?.(turn);
  const job: RunJobV1 = {
    version: 1,
    runId: turn.runId,
    conversationId,
    userId,
    ...(tenantId ? { tenantId } : {}),
    requestedAt: new Date().toISOString(),
  };
  await runQueue.enqueue(job);
  return turn;
}

/** Every chunk of a run stream up to its end (the role chunk included), parsed. */
export async function readToEnd(stream: RunStream, runId: string, timeoutMs = 10_000): Promise<ChatCompletionChunk[]> {
  const chunks: ChatCompletionChunk[] = [];
  let offset = STREAM_START;
  const until = Date.now() + timeoutMs;
  for (;;) {
    const left = until - Date.now();
    if (left <= 0) throw new Error(`stream ${runId} did not end within ${timeoutMs} ms (${chunks.length} chunks)`);
    const read = await stream.read(runId, offset, { blockMs: Math.min(left, 1000) });
    for (const entry of read.entries) {
      chunks.push(JSON.parse(entry.data) as ChatCompletionChunk);
      offset = entry.offset;
    }
    if (read.ended) return chunks;
  }
}

export async function readUntil(
  stream: RunStream,
  runId: string,
  matches: (chunk: ChatCompletionChunk) => boolean,
  timeoutMs = 10_000,
): Promise<ChatCompletionChunk[]> {
  const chunks: ChatCompletionChunk[] = [];
  let offset = STREAM_START;
  const until = Date.now() + timeoutMs;
  for (;;) {
    const left = until - Date.now();
    if (left <= 0) throw new Error(`no matching chunk in stream ${runId} within ${timeoutMs} ms`);
    const read = await stream.read(runId, offset, { blockMs: Math.min(left, 1000) });
    for (const entry of read.entries) {
      const chunk = JSON.parse(entry.data) as ChatCompletionChunk;
      chunks.push(chunk);
      offset = entry.offset;
      if (matches(chunk)) return chunks;
    }
    if (read.ended) throw new Error(`stream ${runId} ended without a matching chunk`);
  }
}

export function streamedText(chunks: readonly ChatCompletionChunk[]): string {
  return chunks.map((chunk) => chunk.choices[0].delta.content ?? '').join('');
}

export interface StoredMessage {
  text: string;
  processing: boolean;
  unfinished: boolean;
  pending_interaction: Record<string, unknown> | null;
  heartbeat_at: Date | null;
  updated_at: Date;
}

export async function storedMessage(runtime: RunningAgentRuntime, messageId: string): Promise<StoredMessage> {
  const dataSource = runtime.service.nest.get(DataSource);
  const rows = (await dataSource.query(
    `SELECT "text", "processing", "unfinished", "pending_interaction", "heartbeat_at", "updated_at"
     FROM "conversations"."messages" WHERE "id" = $1`,
    [messageId],
  )) as StoredMessage[];
  if (!rows[0]) throw new Error(`no message ${messageId}`);
  return rows[0];
}

export async function storedTasks(runtime: RunningAgentRuntime, messageId: string): Promise<Record<string, unknown>[]> {
  const dataSource = runtime.service.nest.get(DataSource);
  return (await dataSource.query(`SELECT * FROM "conversations"."tasks" WHERE "message_id" = $1 ORDER BY "position"`, [
    messageId,
  ])) as Record<string, unknown>[];
}

/** Runs SQL on the runtime's database (arranging rows a test needs). */
export async function sql(runtime: RunningAgentRuntime, text: string, parameters: unknown[] = []): Promise<unknown> {
  return runtime.service.nest.get(DataSource).query(text, parameters);
}
