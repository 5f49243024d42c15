import { type AccessTokenPrincipal } from '@fed/auth';
import { type RunQueue, type RunStream, STREAM_START, type Signals, StreamEndedError } from '@fed/bus';
import { type ServiceConfig } from '@fed/config';
import { ApiError, errorChunk, finalChunk, isUuid, roleChunk } from '@fed/contracts';
import { type Logger } from '@fed/observability';
import { type ServerResponse } from 'node:http';
import { parseChatRequest } from './chat-request.dto';
import { relayRun, writeStreamHead } from './sse-relay';
import { type TurnCatalog } from './turn-catalog.port';
import { type ConversationOwner, ownerOf } from '../conversation-owner';
import { type ConversationsRepository } from '../conversations/conversations.repository';
import { parseConversationId } from '../conversations/conversations.dto';
import { type TurnsRepository } from './turns.repository';

/** An SSE `id:` we wrote: a run-stream offset (`<ms>-<seq>`). */
const STREAM_OFFSET = /^[0-9]{1,20}-[0-9]{1,20}$/;
/** How long cancel waits for a runtime to end the turn before ending an abandoned one itself. */
const CANCEL_GRACE_MS = 1500;
const TITLE_LENGTH = 60;

export interface TurnsDependencies {
  repository: TurnsRepository;
  conversations: Pick<ConversationsRepository, 'modeOf'>;
  catalog: TurnCatalog;
  runQueue: RunQueue;
  runStream: RunStream;
  signals: Signals;
  config: ServiceConfig;
  logger: Logger;
  shutdown: AbortSignal;
}

/** A new conversation's title: the first line of the first message, shortened. */
export function titleFrom(text: string): string {
  const line =
    text
      .trim()
      .split(/\r\n|\r|\n/, 1)[0]
      ?.trim() ?? '';
  const characters = Array.from(line.replace(/[\u0000-\u001f\u007f]/g, ' '));
  if (characters.length === 0) return 'New conversation';
  return characters.length <= TITLE_LENGTH ? characters.join('') : `${characters.slice(0, TITLE_LENGTH - 1).join('')}…`;
}

/** `POST /v1/chat/completions`, its reconnect and cancel (document 2; docs/chat.md "One turn"). */
export class TurnsService {
  private readonly pendingChecks = new Set<NodeJS.Timeout>();

  constructor(private readonly deps: TurnsDependencies) {}

  private get model(): string {
    return this.deps.config.chat.modelName;
  }

  async start(principal: AccessTokenPrincipal, body: unknown, response: ServerResponse): Promise<void> {
    const request = parseChatRequest(body, this.model);
    const { options } = request;
    const resolved = await this.deps.catalog.resolveForTurn({
      ...(options.personaKey !== undefined ? { personaKey: options.personaKey } : {}),
      ...(options.playbookId !== undefined ? { playbookId: options.playbookId } : {}),
      ...(options.skillIds !== undefined ? { skillIds: options.skillIds } : {}),
    });
    const { skillIds: _named, ...turnOptions } = options;
    const skillIds = resolved.skills.map((skill) => skill.id);
    // Uploaded and library files come with a later issue: until then no reference can be found.
    if (request.files.length > 0) {
      const missing = request.files[0];
      throw new ApiError('not_found', `input_file ${missing?.fileId ?? missing?.filepath} was not found`);
    }
    const owner = ownerOf(principal);
    const admitted = await this.deps.repository.admit(owner, {
      ...(request.conversationId ? { conversationId: request.conversationId } : {}),
      title: titleFrom(request.text),
      text: request.text,
      files: [],
      options: skillIds.length > 0 ? { ...turnOptions, skillIds } : turnOptions,
    });
    if (!admitted) throw await this.missingConversation(owner, request.conversationId as string);
    try {
      await this.deps.runStream.append(
        admitted.runId,
        JSON.stringify(roleChunk(this.model, admitted.conversationId, admitted.runId)),
      );
      await this.deps.runQueue.enqueue({
        version: 1,
        runId: admitted.runId,
        conversationId: admitted.conversationId,
        userId: owner.userId,
        ...(owner.tenantId ? { tenantId: owner.tenantId } : {}),
        requestedAt: new Date().toISOString(),
      });
    } catch (error) {
      // The turn cannot run: it must not stay processing (the next request would get 409).
      this.deps.logger.error({ err: error, runId: admitted.runId }, 'chat turn could not be queued');
      await this.deps.repository.endNow(admitted.runId);
      throw new ApiError('service_unavailable', 'the agent could not be reached; try again shortly');
    }
    writeStreamHead(response, admitted.conversationId, admitted.runId);
    await this.relay(response, admitted.runId, STREAM_START);
  }

  async rejoin(
    principal: AccessTokenPrincipal,
    conversationId: string,
    lastEventId: unknown,
    response: ServerResponse,
  ): Promise<void> {
    const id = parseConversationId(conversationId);
    let after = STREAM_START;
    if (lastEventId !== undefined && lastEventId !== '') {
      if (typeof lastEventId !== 'string' || !STREAM_OFFSET.test(lastEventId)) {
        throw new ApiError('invalid_parameter', 'Last-Event-ID must be an id of this stream');
      }
      after = lastEventId;
    }
    const owner = ownerOf(principal);
    const runId = await this.deps.repository.processingRun(owner, id);
    if (!runId || (await this.deps.runStream.state(runId)) === 'absent') {
      if (!(await this.deps.conversations.modeOf(owner, id))) {
        throw new ApiError('conversation_not_found', 'no such conversation');
      }
      throw new ApiError('not_found', 'the conversation has no turn in progress');
    }
    writeStreamHead(response, id, runId);
    await this.relay(response, runId, after);
  }

  async cancel(principal: AccessTokenPrincipal, conversationId: string, body: unknown) {
    const id = parseConversationId(conversationId);
    let messageId: string | undefined;
    if (body !== undefined && body !== null) {
      if (typeof body !== 'object' || Array.isArray(body))
        throw new ApiError('invalid_request', 'body must be a JSON object');
      const given = (body as Record<string, unknown>).messageId;
      if (given !== undefined) {
        if (!isUuid(given)) throw new ApiError('invalid_parameter', 'messageId must be a UUID string');
        messageId = given.toLowerCase();
      }
    }
    const owner = ownerOf(principal);
    const mode = await this.deps.conversations.modeOf(owner, id);
    if (!mode) throw new ApiError('conversation_not_found', 'no such conversation');
    if (mode === 'archive') {
      throw new ApiError('conversation_archived', 'the conversation is archived; restore it first');
    }
    if (messageId && !(await this.deps.repository.hasMessage(owner, id, messageId))) {
      throw new ApiError('not_found', 'no such message in this conversation');
    }
    const runIds = await this.deps.repository.requestCancel(owner, id, messageId);
    for (const runId of runIds) {
      await this.deps.signals.publish('run.cancelled', { version: 1, conversationId: id, runId });
      this.endIfAbandoned(runId, CANCEL_GRACE_MS);
    }
    return { conversationId: id, cancelled: true as const };
  }

  private async missingConversation(owner: ConversationOwner, conversationId: string): Promise<ApiError> {
    return (await this.deps.conversations.modeOf(owner, conversationId)) === 'archive'
      ? new ApiError('conversation_archived', 'the conversation is archived; restore it to continue it')
      : new ApiError('conversation_not_found', 'no such conversation');
  }

  /** Appends the last chunk of a turn this instance ended (no runtime will), then ends its log. */
  async endStream(runId: string, ending: 'cancelled' | 'lost'): Promise<void> {
    const chunk =
      ending === 'cancelled'
        ? finalChunk(this.model, 'stop', { status: 'unfinished' })
        : errorChunk(this.model, 'runtime_lost', 'the agent stopped before finishing this answer');
    try {
      await this.deps.runStream.append(runId, JSON.stringify(chunk));
    } catch (error) {
      if (!(error instanceof StreamEndedError)) throw error;
    }
    await this.deps.runStream.end(runId, { ttlSeconds: this.deps.config.chat.streamTtlSeconds });
  }

  close(): void {
    for (const timer of this.pendingChecks) clearTimeout(timer);
    this.pendingChecks.clear();
  }

  private async relay(response: ServerResponse, runId: string, after: string): Promise<void> {
    try {
      await relayRun(response, {
        runStream: this.deps.runStream,
        runId,
        after,
        heartbeatMs: this.deps.config.chat.heartbeatMs,
        shutdown: this.deps.shutdown,
      });
    } catch (error) {
      // The stream has begun: no JSON error can follow. The client reconnects with its last id.
      this.deps.logger.warn({ err: error, runId }, 'chat stream relay failed; the client may reconnect');
      if (!response.writableEnded) response.end();
    }
  }

  /** A cancelled turn that no runtime has taken (or whose runtime is silent) is ended here. */
  private endIfAbandoned(runId: string, afterMs: number): void {
    const timer = setTimeout(() => {
      this.pendingChecks.delete(timer);
      void (async () => {
        if ((await this.deps.runStream.state(runId)) === 'ended') return;
        if (await this.deps.repository.endAbandoned(runId, this.deps.config.agent.stallMs)) {
          await this.endStream(runId, 'cancelled');
        }
      })().catch((error: unknown) => this.deps.logger.warn({ err: error, runId }, 'cancelled turn could not be ended'));
    }, afterMs);
    timer.unref();
    this.pendingChecks.add(timer);
  }
}
