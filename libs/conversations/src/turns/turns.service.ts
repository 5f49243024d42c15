import { type RunStream, STREAM_START } from '@fed/bus';
import { type ServiceConfig } from '@fed/config';
import { type ChatCancelResponse } from '@fed/contracts';
import { type Logger, type OpenStreams } from '@fed/observability';
import { type ServerResponse } from 'node:http';
import {
  ChatCompletionRequestDto,
  type MarketplaceChatRequestDto,
  toChatTurnRequest,
  toMarketplaceTurnRequest,
} from './chat-request.dto';
import { relayRun, writeStreamHead } from './sse-relay';
import { type ConversationOwner } from '../conversation-owner';
import { type StartedTurn, type TurnStarter } from './turn-starter';
import { TurnsError } from './turns.errors';

/** An SSE `id:` we wrote: a run-stream offset (`<ms>-<seq>`). */
const STREAM_OFFSET = /^[0-9]{1,20}-[0-9]{1,20}$/;

export interface TurnsDependencies {
  starter: TurnStarter;
  runStream: RunStream;
  config: Pick<ServiceConfig, 'chat'>;
  logger: Logger;
  shutdown: AbortSignal;
  /** `sse_streams_active{kind="chat"}`. */
  streams: OpenStreams;
}

/** The chat endpoint over the turn starter (document 2): its own checks, and the run stream relayed as SSE. */
export class TurnsService {
  constructor(private readonly deps: TurnsDependencies) {}

  /** Resolves once the head is written; the relay then runs on its own, so no Nest frame holds the request. */
  async start(
    owner: ConversationOwner,
    body: ChatCompletionRequestDto | MarketplaceChatRequestDto,
    response: ServerResponse,
  ): Promise<void> {
    const started = await this.startTurn(owner, body);
    writeStreamHead(response, started.conversationId, started.runId);
    void this.relay(response, started.runId, STREAM_START);
  }

  /** As `start`: resolves once the head is written, the relay running on its own. */
  async rejoin(
    owner: ConversationOwner,
    conversationId: string,
    lastEventId: unknown,
    response: ServerResponse,
  ): Promise<void> {
    let after = STREAM_START;
    if (lastEventId !== undefined && lastEventId !== '') {
      if (typeof lastEventId !== 'string' || !STREAM_OFFSET.test(lastEventId)) {
        throw new TurnsError('invalid_last_event_id', 'Last-Event-ID must be an id of this stream');
      }
      after = lastEventId;
    }
    const turn = await this.deps.starter.current(owner, conversationId);
    writeStreamHead(response, turn.conversationId, turn.runId);
    void this.relay(response, turn.runId, after);
  }

  cancel(owner: ConversationOwner, conversationId: string, messageId?: string): Promise<ChatCancelResponse> {
    return this.deps.starter.cancel(owner, conversationId, messageId);
  }

  private async startTurn(
    owner: ConversationOwner,
    body: ChatCompletionRequestDto | MarketplaceChatRequestDto,
  ): Promise<StartedTurn> {
    const model = this.deps.config.chat.modelName;
    if (body.model !== model) throw new TurnsError('invalid_model', `model must be "${model}"`);
    const request =
      body instanceof ChatCompletionRequestDto
        ? toChatTurnRequest(body)
        : toMarketplaceTurnRequest(body, owner.agentId as string);
    return this.deps.starter.start(owner, request);
  }

  private async relay(response: ServerResponse, runId: string, after: string): Promise<void> {
    this.deps.streams.track(response);
    try {
      await relayRun(response, {
        runStream: this.deps.runStream,
        runId,
        after,
        heartbeatMs: this.deps.config.chat.heartbeatMs,
        shutdown: this.deps.shutdown,
        model: this.deps.config.chat.modelName,
      });
    } catch (error) {
      // The stream has begun: no JSON error can follow. The client reconnects with its last id.
      this.deps.logger.warn({ err: error, runId }, 'chat stream relay failed; the client may reconnect');
      if (!response.writableEnded) response.end();
    }
  }
}
