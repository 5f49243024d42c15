import { type RunQueue, type RunStream, type Signals, StreamEndedError } from '@fed/bus';
import { type ServiceConfig } from '@fed/config';
import { type ChatCancelResponse, type ChatTurnRequest, errorChunk, finalChunk, roleChunk } from '@fed/contracts';
import { type Logger, captureTraceContext } from '@fed/observability';
import { type ConversationOwner } from '../conversation-owner';
import { type ConversationsRepository } from '../conversations/conversations.repository';
import { type TurnCatalog } from './turn-catalog.port';
import { type TurnFiles } from './turn-files';
import { TurnsError } from './turns.errors';
import { type AdmittedTurn, type TurnsRepository } from './turns.repository';
import { NOT_QUEUED, RUNTIME_LOST } from './turn-errors';

/** How long cancel waits for a runtime to end the turn before ending an abandoned one itself. */
const CANCEL_GRACE_MS = 1500;
const TITLE_LENGTH = 60;

export interface TurnStarterDependencies {
  repository: TurnsRepository;
  conversations: Pick<ConversationsRepository, 'modeOf'>;
  catalog: TurnCatalog;
  files: Pick<TurnFiles, 'resolve'>;
  runQueue: RunQueue;
  runStream: RunStream;
  signals: Signals;
  config: Pick<ServiceConfig, 'chat' | 'agent'>;
  logger: Logger;
}

/** A turn admitted and queued. Its chunks are the run stream `runId`, from `STREAM_START`. */
export type StartedTurn = AdmittedTurn;

export interface TurnInProgress {
  conversationId: string;
  /** The assistant message id, also the id of the run stream to read. */
  runId: string;
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

/** Starts, finds and cancels turns for every front door, and ends turns no runtime will (docs/chat.md "One turn"). */
export class TurnStarter {
  private readonly pendingChecks = new Set<NodeJS.Timeout>();

  constructor(private readonly deps: TurnStarterDependencies) {}

  private get model(): string {
    return this.deps.config.chat.modelName;
  }

  /** Admits (409 if busy), appends the role chunk, queues; an unqueueable turn ends at once (503). */
  async start(owner: ConversationOwner, request: ChatTurnRequest): Promise<StartedTurn> {
    const { skillIds: named, ...options } = request.options;
    const resolved = await this.deps.catalog.resolveForTurn({
      ...(options.personaKey !== undefined ? { personaKey: options.personaKey } : {}),
      ...(options.playbookId !== undefined ? { playbookId: options.playbookId } : {}),
      ...(named !== undefined ? { skillIds: named } : {}),
    });
    const skillIds = resolved.skills.map((skill) => skill.id);
    // Every reference resolves before anything is stored: an unknown one is a 404 and no turn starts.
    const files = await this.deps.files.resolve(owner, request.files);
    const admitted = await this.deps.repository.admit(owner, {
      ...(request.conversationId ? { conversationId: request.conversationId } : {}),
      title: titleFrom(request.text),
      text: request.text,
      files,
      options: skillIds.length > 0 ? { ...options, skillIds } : options,
    });
    if (!admitted) throw await this.missingConversation(owner, request.conversationId as string);
    // The turn continues the request's trace: in the runtime, and for readers that come back later.
    const trace = captureTraceContext();
    try {
      await this.deps.runStream.append(
        admitted.runId,
        JSON.stringify(roleChunk(this.model, admitted.conversationId, admitted.runId)),
        trace,
      );
      await this.deps.runQueue.enqueue({
        version: 1,
        runId: admitted.runId,
        conversationId: admitted.conversationId,
        userId: owner.userId,
        ...(owner.tenantId ? { tenantId: owner.tenantId } : {}),
        requestedAt: new Date().toISOString(),
        ...trace,
      });
    } catch (error) {
      // The turn cannot run: it must not stay processing (the next request would get 409).
      this.deps.logger.error({ err: error, runId: admitted.runId }, 'chat turn could not be queued');
      await this.deps.repository.endNow(admitted.runId);
      throw new TurnsError('not_queued', NOT_QUEUED.message);
    }
    return admitted;
  }

  /** The turn in progress, whose run stream is still there to read; 404 otherwise. */
  async current(owner: ConversationOwner, conversationId: string): Promise<TurnInProgress> {
    const runId = await this.deps.repository.processingRun(owner, conversationId);
    if (!runId || (await this.deps.runStream.state(runId)) === 'absent') {
      if (!(await this.deps.conversations.modeOf(owner, conversationId))) {
        throw new TurnsError('conversation_not_found', 'no such conversation');
      }
      throw new TurnsError('no_turn_in_progress', 'the conversation has no turn in progress');
    }
    return { conversationId, runId };
  }

  /** Signals the runtime to stop, and ends the turn here after a grace period if no runtime has it; idempotent. */
  async cancel(owner: ConversationOwner, conversationId: string, messageId?: string): Promise<ChatCancelResponse> {
    const mode = await this.deps.conversations.modeOf(owner, conversationId);
    if (!mode) throw new TurnsError('conversation_not_found', 'no such conversation');
    if (mode === 'archive') {
      throw new TurnsError('conversation_archived', 'the conversation is archived; restore it first');
    }
    if (messageId && !(await this.deps.repository.hasMessage(owner, conversationId, messageId))) {
      throw new TurnsError('message_not_found', 'no such message in this conversation');
    }
    const runIds = await this.deps.repository.requestCancel(owner, conversationId, messageId);
    for (const runId of runIds) {
      await this.deps.signals.publish('run.cancelled', { version: 1, conversationId, runId });
      this.endIfAbandoned(runId, CANCEL_GRACE_MS);
    }
    return { conversationId, cancelled: true };
  }

  /** Appends the last chunk of a turn this instance ended (no runtime will), then ends its log. */
  async endStream(runId: string, ending: 'cancelled' | 'lost'): Promise<void> {
    const chunk =
      ending === 'cancelled'
        ? finalChunk(this.model, 'stop', { status: 'unfinished' })
        : errorChunk(this.model, RUNTIME_LOST.code, RUNTIME_LOST.message);
    try {
      await this.deps.runStream.append(runId, JSON.stringify(chunk));
    } catch (error) {
      if (!(error instanceof StreamEndedError)) throw error;
    }
    await this.deps.runStream.end(runId, { ttlSeconds: this.deps.config.chat.streamTtlSeconds });
  }

  /** Drops the pending abandoned-turn checks (shutdown: the reaper of another instance takes over). */
  close(): void {
    for (const timer of this.pendingChecks) clearTimeout(timer);
    this.pendingChecks.clear();
  }

  private async missingConversation(owner: ConversationOwner, conversationId: string): Promise<TurnsError> {
    return (await this.deps.conversations.modeOf(owner, conversationId)) === 'archive'
      ? new TurnsError('conversation_archived', 'the conversation is archived; restore it to continue it')
      : new TurnsError('conversation_not_found', 'no such conversation');
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
