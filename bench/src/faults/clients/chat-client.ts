import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { type SseStream, openSseStream } from '../../harness/sse-stream';
import { CHAT_MODEL } from '../stack/fault-stack';

/** How a client's turn ended, as the client saw it. */
export type TurnOutcome =
  /** The final chunk said `stop` and not `unfinished`. */
  | 'completed'
  /** The final chunk said `error` (runtime_lost, model_unavailable, ...). */
  | 'error-chunk'
  /** The final chunk said `stop` with `unfinished` (cancelled, step limit). */
  | 'unfinished'
  /** The stream could not be followed to an end: a reconnect was refused (4xx). */
  | 'cut'
  /** No end within the deadline. */
  | 'hanging'
  /** The POST was never answered 200: the turn did not start. */
  | 'refused';

export interface TurnRecord {
  userId: string;
  userText: string;
  outcome: TurnOutcome;
  /** Why the POST or a reconnect was refused, for the report. */
  refusal?: string;
  conversationId?: string;
  messageId?: string;
  /** The text of every content delta received, in order, across reconnects. */
  content: string;
  /** SSE ids received more than once (after reconnects with Last-Event-ID). */
  repeatedIds: number;
  /** Chunks with a finish reason (more than one is a duplicate). */
  finalChunks: number;
  errorCode?: string;
  reconnects: number;
  postAttempts: number;
  /** `data:` lines that were not JSON. */
  malformed: number;
}

interface ChunkJson {
  choices?: { delta?: { content?: string }; finishReason?: string | null; status?: string }[];
  error?: { code?: string };
}

export interface ChatClientOptions {
  /** The chat-service base URLs a load balancer would send to now (the live ones). */
  instances(): string[];
  token(userId: string): Promise<string>;
  /** `Date.now()` by which a turn must have ended; the client then gives up and counts itself hanging. */
  deadline(): number;
}

const RETRY_STATUSES = new Set([502, 503, 504]);
const RETRY_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

/**
 * A chat client as an application would write one: posts a streamed turn (retrying while no instance
 * answers or the answer is 503), follows the stream to `[DONE]`, and when the stream closes without it
 * reconnects (`GET /v1/chat/completions/:conversationId`, `Last-Event-ID`) to the next instance.
 */
export class ChatClient {
  private readonly agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  private serial = 0;

  constructor(private readonly options: ChatClientOptions) {}

  async runTurn(userId: string, userText: string): Promise<TurnRecord> {
    const record: TurnRecord = {
      userId,
      userText,
      outcome: 'hanging',
      content: '',
      repeatedIds: 0,
      finalChunks: 0,
      reconnects: 0,
      postAttempts: 0,
      malformed: 0,
    };
    const ids = new Set<string>();
    let lastId: string | undefined;
    let done = false;
    const handlers = {
      onEvent: ({ id, data }: { id?: string; data: string }) => {
        if (id !== undefined) {
          if (ids.has(id)) record.repeatedIds++;
          ids.add(id);
          lastId = id;
        }
        if (data === '[DONE]') {
          done = true;
          return;
        }
        let chunk: ChunkJson;
        try {
          chunk = JSON.parse(data) as ChunkJson;
        } catch {
          record.malformed++;
          return;
        }
        const choice = chunk.choices?.[0];
        record.content += choice?.delta?.content ?? '';
        if (choice?.finishReason) {
          record.finalChunks++;
          record.outcome =
            choice.finishReason === 'error'
              ? 'error-chunk'
              : choice.status === 'unfinished'
                ? 'unfinished'
                : 'completed';
          record.errorCode = chunk.error?.code;
        }
      },
    };

    const body = JSON.stringify({
      model: CHAT_MODEL,
      stream: true,
      agentMode: false,
      reportMode: 'without',
      outputFormat: 'markdown',
      messages: [{ role: 'user', content: userText }],
    });
    let instance = this.serial++;
    let stream: SseStream | undefined;
    while (!stream) {
      if (Date.now() > this.options.deadline()) return { ...record, outcome: 'refused', refusal: 'deadline' };
      const base = this.pick(instance);
      record.postAttempts++;
      try {
        stream = await openSseStream(
          this.agent,
          new URL(`${base}/api/v1/chat/completions`),
          { method: 'POST', headers: await this.headers(userId, { 'Content-Type': 'application/json' }), body },
          handlers,
        );
      } catch (error) {
        const reason = reasonOf(error);
        if (!retryable(error)) return { ...record, outcome: 'refused', refusal: reason };
        record.refusal = reason;
        instance++;
        await sleep(backoff(record.postAttempts));
      }
    }
    record.refusal = undefined;
    record.conversationId = String(stream.headers['x-conversation-id']);
    record.messageId = String(stream.headers['x-message-id']);

    let attempts = 0;
    for (;;) {
      const closed = await closedBefore(stream, this.options.deadline());
      if (!closed) {
        stream.close();
        record.outcome = 'hanging';
        return record;
      }
      if (done) {
        if (record.finalChunks === 0) record.outcome = 'cut';
        return record;
      }
      // Closed without [DONE] (the instance went away, or stopped): rejoin on the next one.
      stream = undefined;
      while (!stream) {
        if (Date.now() > this.options.deadline()) {
          record.outcome = 'hanging';
          return record;
        }
        instance++;
        attempts++;
        try {
          stream = await openSseStream(
            this.agent,
            new URL(`${this.pick(instance)}/api/v1/chat/completions/${record.conversationId}`),
            { method: 'GET', headers: await this.headers(userId, lastId ? { 'Last-Event-ID': lastId } : {}) },
            handlers,
          );
          record.reconnects++;
        } catch (error) {
          if (!retryable(error)) {
            record.refusal = reasonOf(error);
            record.outcome = 'cut';
            return record;
          }
          await sleep(backoff(attempts));
        }
      }
    }
  }

  close(): void {
    this.agent.destroy();
  }

  private pick(index: number): string {
    const instances = this.options.instances();
    if (instances.length === 0) throw new Error('no chat-service instance is running');
    return instances[index % instances.length] as string;
  }

  private async headers(userId: string, extra: Record<string, string>): Promise<Record<string, string>> {
    return { Authorization: `Bearer ${await this.options.token(userId)}`, ...extra };
  }
}

/** Whether the stream closed before `deadline` (a `Date.now()` value); the timer is cleared either way. */
async function closedBefore(stream: SseStream, deadline: number): Promise<boolean> {
  const stop = new AbortController();
  try {
    return await Promise.race([
      stream.closed.then(() => true),
      sleep(Math.max(0, deadline - Date.now()), false, { signal: stop.signal }),
    ]);
  } finally {
    stop.abort();
  }
}

function statusOf(error: unknown): number | undefined {
  const match = /answered (\d{3})/.exec(error instanceof Error ? error.message : '');
  return match ? Number(match[1]) : undefined;
}

function retryable(error: unknown): boolean {
  const status = statusOf(error);
  if (status !== undefined) return RETRY_STATUSES.has(status);
  return RETRY_CODES.has((error as NodeJS.ErrnoException).code ?? '') || /socket hang up/.test(String(error));
}

function reasonOf(error: unknown): string {
  const status = statusOf(error);
  if (status !== undefined) {
    const code = /"code":"([a-z_]+)"/.exec(error instanceof Error ? error.message : '')?.[1];
    return code ? `${status} ${code}` : String(status);
  }
  return (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
}

function backoff(attempt: number): number {
  return Math.min(2000, 100 * 2 ** Math.min(attempt, 5));
}
