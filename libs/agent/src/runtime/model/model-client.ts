import { createParser } from 'eventsource-parser';
import { randomUUID } from 'node:crypto';
import { Pool } from 'undici';
import type { ModelReply, ModelRequest, ToolCall } from './chat-wire';
import type { GatewayCredentials } from './gateway-credentials';
import { ModelError, errorCodeForStatus } from './model-error';

export interface ModelClientSettings {
  gatewayUrl: string;
  /** Longest wait for the answer's first byte, and between two of its bytes. */
  timeoutMs: number;
  /** Connections kept to the gateway (one per running turn is enough). */
  connections: number;
}

const ERROR_BODY_LIMIT = 64 * 1024;
const SHOWN_MESSAGE_LENGTH = 300;

/** Streams gateway chat completions over a kept-alive pool; aborting ends the call (and the provider's) at once. */
export class ModelClient {
  private readonly pool: Pool;
  private readonly basePath: string;

  constructor(
    private readonly settings: ModelClientSettings,
    private readonly credentials: GatewayCredentials,
  ) {
    const url = new URL(settings.gatewayUrl);
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.pool = new Pool(url.origin, {
      connections: settings.connections,
      keepAliveTimeout: 30_000,
      connect: { timeout: 10_000 },
    });
  }

  async stream(request: ModelRequest, onText: (piece: string) => void, signal: AbortSignal): Promise<ModelReply> {
    const authorization = await this.credentials.authorization();
    const headers: Record<string, string> = {
      authorization,
      'content-type': 'application/json',
      accept: 'text/event-stream',
      'x-client-agent-id': 'agent-runtime',
    };
    if (request.sessionId) headers['x-client-session-id'] = request.sessionId;
    if (request.tenantId) headers['x-client-tenant-id'] = request.tenantId;
    if (request.privateMode) headers['x-federation-private'] = 'true';
    const body = JSON.stringify({
      model: request.model,
      messages: request.messages,
      stream: true,
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      ...(request.maxTokens !== undefined ? { max_tokens: request.maxTokens } : {}),
      ...(request.tools && request.tools.length > 0
        ? { tools: request.tools, ...(request.toolChoice ? { tool_choice: request.toolChoice } : {}) }
        : {}),
    });

    let answer;
    try {
      answer = await this.pool.request({
        method: 'POST',
        path: `${this.basePath}/chat/completions`,
        headers,
        body,
        signal,
        headersTimeout: this.settings.timeoutMs,
        bodyTimeout: this.settings.timeoutMs,
      });
    } catch (error) {
      if (signal.aborted) throw error;
      throw new ModelError('model_unavailable', `The model gateway could not be reached (${describe(error)}).`);
    }
    if (answer.statusCode !== 200) {
      const text = await readLimited(answer.body, ERROR_BODY_LIMIT).catch(() => '');
      if (answer.statusCode === 401) this.credentials.forget();
      throw new ModelError(
        errorCodeForStatus(answer.statusCode),
        `The model gateway answered ${answer.statusCode}: ${gatewayMessage(text)}`,
      );
    }

    const reply = new ReplyAssembler(onText);
    const parser = createParser({ onEvent: (event) => reply.event(event.data) });
    const decoder = new TextDecoder();
    try {
      for await (const chunk of answer.body as AsyncIterable<Buffer>) {
        parser.feed(decoder.decode(chunk, { stream: true }));
        if (reply.done) break;
      }
    } catch (error) {
      if (signal.aborted || error instanceof ModelError) throw error;
      throw new ModelError('model_unavailable', `The model's answer broke off (${describe(error)}).`);
    }
    return reply.result();
  }

  async close(): Promise<void> {
    await this.pool.close().catch(() => this.pool.destroy());
  }
}

interface ToolCallPiece {
  index?: number;
  id?: string;
  function?: { name?: string; arguments?: string };
}

interface ChunkJson {
  error?: { message?: unknown };
  choices?: {
    delta?: { content?: unknown; tool_calls?: ToolCallPiece[] };
    finish_reason?: string | null;
  }[];
}

class ReplyAssembler {
  done = false;
  private text = '';
  private finishReason: string | null = null;
  private readonly calls = new Map<number, ToolCall>();

  constructor(private readonly onText: (piece: string) => void) {}

  event(data: string): void {
    if (data === '[DONE]') {
      this.done = true;
      return;
    }
    let chunk: ChunkJson;
    try {
      chunk = JSON.parse(data) as ChunkJson;
    } catch {
      throw new ModelError('model_unavailable', 'The model gateway sent an event that is not JSON.');
    }
    if (chunk.error) {
      const message = typeof chunk.error.message === 'string' ? chunk.error.message : 'unknown error';
      throw new ModelError('model_unavailable', `The model's answer broke off: ${clip(message)}`);
    }
    const choice = chunk.choices?.[0];
    if (!choice) return;
    const delta = choice.delta ?? {};
    if (typeof delta.content === 'string' && delta.content.length > 0) {
      this.text += delta.content;
      this.onText(delta.content);
    }
    for (const piece of delta.tool_calls ?? []) this.addToolCallPiece(piece);
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
  }

  result(): ModelReply {
    if (!this.done && this.finishReason === null) {
      throw new ModelError('model_unavailable', "The model's answer ended before it was complete.");
    }
    const toolCalls = [...this.calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call);
    return { text: this.text, toolCalls, finishReason: this.finishReason };
  }

  private addToolCallPiece(piece: ToolCallPiece): void {
    const index = typeof piece.index === 'number' ? piece.index : this.calls.size;
    let call = this.calls.get(index);
    if (!call) {
      call = { id: '', type: 'function', function: { name: '', arguments: '' } };
      this.calls.set(index, call);
    }
    if (typeof piece.id === 'string' && piece.id.length > 0 && call.id === '') call.id = piece.id;
    if (typeof piece.function?.name === 'string') call.function.name += piece.function.name;
    if (typeof piece.function?.arguments === 'string') call.function.arguments += piece.function.arguments;
    // A call id is needed to give the result back; a provider that sends none gets one of ours.
    if (call.id === '') call.id = `call_${randomUUID().replace(/-/g, '')}`;
  }
}

async function readLimited(body: AsyncIterable<Buffer>, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= limit) break;
  }
  return Buffer.concat(chunks).toString('utf8', 0, Math.min(size, limit));
}

/** The gateway's error message (its envelope, either family), short enough to show. */
function gatewayMessage(text: string): string {
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown } };
    if (typeof parsed.error?.message === 'string') return clip(parsed.error.message);
  } catch {
    // Not JSON: the text itself.
  }
  return clip(text.trim()) || 'no details';
}

function clip(text: string): string {
  return text.length > SHOWN_MESSAGE_LENGTH ? `${text.slice(0, SHOWN_MESSAGE_LENGTH - 1)}…` : text;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
