import { type AccessTokenPrincipal } from '@fed/auth';
import { type RunStream, STREAM_START } from '@fed/bus';
import { type ServiceConfig } from '@fed/config';
import { ApiError, type ChatCancelResponse } from '@fed/contracts';
import { type Logger } from '@fed/observability';
import { type ServerResponse } from 'node:http';
import { type ChatCompletionRequestDto, toChatTurnRequest } from './chat-request.dto';
import { relayRun, writeStreamHead } from './sse-relay';
import { ownerOf } from '../conversation-owner';
import { type TurnStarter } from './turn-starter';

/** An SSE `id:` we wrote: a run-stream offset (`<ms>-<seq>`). */
const STREAM_OFFSET = /^[0-9]{1,20}-[0-9]{1,20}$/;

export interface TurnsDependencies {
  starter: TurnStarter;
  runStream: RunStream;
  config: Pick<ServiceConfig, 'chat'>;
  logger: Logger;
  shutdown: AbortSignal;
}

/**
 * `POST /v1/chat/completions`, its reconnect and cancel over HTTP (document 2): the turn itself is the
 * starter's; this adds the checks only the chat endpoint makes and relays the run stream as SSE.
 */
export class TurnsService {
  constructor(private readonly deps: TurnsDependencies) {}

  /** `body` has passed its DTO's checks; only the model's name, which is configuration, is left. */
  async start(
    principal: AccessTokenPrincipal,
    body: ChatCompletionRequestDto,
    response: ServerResponse,
  ): Promise<void> {
    const model = this.deps.config.chat.modelName;
    if (body.model !== model) throw new ApiError('invalid_parameter', `model must be "${model}"`);
    const started = await this.deps.starter.start(ownerOf(principal), toChatTurnRequest(body));
    writeStreamHead(response, started.conversationId, started.runId);
    await this.relay(response, started.runId, STREAM_START);
  }

  async rejoin(
    principal: AccessTokenPrincipal,
    conversationId: string,
    lastEventId: unknown,
    response: ServerResponse,
  ): Promise<void> {
    let after = STREAM_START;
    if (lastEventId !== undefined && lastEventId !== '') {
      if (typeof lastEventId !== 'string' || !STREAM_OFFSET.test(lastEventId)) {
        throw new ApiError('invalid_parameter', 'Last-Event-ID must be an id of this stream');
      }
      after = lastEventId;
    }
    const turn = await this.deps.starter.current(ownerOf(principal), conversationId);
    writeStreamHead(response, turn.conversationId, turn.runId);
    await this.relay(response, turn.runId, after);
  }

  cancel(principal: AccessTokenPrincipal, conversationId: string, messageId?: string): Promise<ChatCancelResponse> {
    return this.deps.starter.cancel(ownerOf(principal), conversationId, messageId);
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
}
