import {
  type AgentCard,
  type CancelTaskRequest,
  type GetTaskRequest,
  type ListTaskPushNotificationConfigsResponse,
  type ListTasksResponse,
  type Message,
  type SendMessageRequest,
  type StreamResponse,
  type SubscribeToTaskRequest,
  type Task,
  TaskState,
  type TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import {
  ContentTypeNotSupportedError,
  ExtendedAgentCardNotConfiguredError,
  PushNotificationNotSupportedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import { type A2ARequestHandler, type ServerCallContext } from '@a2a-js/sdk/server';
import { formatOf } from '@fed/agent';
import { type RunStream, STREAM_START } from '@fed/bus';
import { type ChatCompletionChunk, isUuid } from '@fed/contracts';
import {
  type ConversationOwner,
  type ConversationReads,
  type ConversationRecords,
  type FilesService,
  type StartedTurn,
  type TurnStarter,
} from '@fed/conversations';
import { type Logger } from '@fed/observability';
import { type StoredInlineFile, followRun, withInlineFiles } from '../turns';
import { type A2aCall, callOf } from './a2a-call';
import { toA2aError } from './a2a-errors';
import { status, task, taskEvent } from './a2a-wire';
import { sentHistory, storedArtifacts, taskFromRecords } from './task-view';
import { TurnEvents, endsUnfinished } from './turn-events';
import { readTurnInput } from './turn-input';

export interface A2aHandlerDependencies {
  starter: TurnStarter;
  runStream: RunStream;
  reads: ConversationReads;
  files: FilesService;
  card: AgentCard;
  /** `{base_url}`, for the download links of file artifacts. */
  baseUrl: string;
  /** How long `tasks/cancel` waits for the turn to end before answering the task as it stands. */
  cancelWaitMs: number;
  logger: Logger;
}

/** A run-stream read that stops at the first quiet spell: what is there now. */
const NOW_MS = 1;
/** Following a run to its end: the quiet ticks are not used (keep-alives are the HTTP layer's). */
const FOLLOW_QUIET_MS = 60_000;

/** Document 3's A2A over the turn pipeline: a conversation is a task, answered by any instance. */
export class A2aRequestHandler implements A2ARequestHandler {
  constructor(private readonly deps: A2aHandlerDependencies) {}

  async getAgentCard(): Promise<AgentCard> {
    return this.deps.card;
  }

  async getAuthenticatedExtendedAgentCard(): Promise<AgentCard> {
    throw new ExtendedAgentCardNotConfiguredError({ message: 'there is no extended agent card' });
  }

  sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Task> {
    return this.guard(async () => {
      const call = callOf(context);
      const started = await this.start(call.owner, params);
      // The ledger stores a turn's end, failures included, before its final chunk: the rows are final then.
      if (!params.configuration?.returnImmediately) await this.followToEnd(started.runId, call.signal);
      const answered = taskFromRecords(await this.records(call.owner, started.conversationId), this.deps.baseUrl, 0);
      answered.history = sentHistory(
        params.message as Message,
        started.conversationId,
        params.configuration?.historyLength,
      );
      return answered;
    });
  }

  sendMessageStream(params: SendMessageRequest, context: ServerCallContext): AsyncGenerator<StreamResponse> {
    return this.guardStream(() => this.streamTurn(params, callOf(context)));
  }

  getTask(params: GetTaskRequest, context: ServerCallContext): Promise<Task> {
    return this.guard(async () => {
      const call = callOf(context);
      const records = await this.records(call.owner, params.id);
      return taskFromRecords(records, this.deps.baseUrl, params.historyLength);
    });
  }

  cancelTask(params: CancelTaskRequest, context: ServerCallContext): Promise<Task> {
    return this.guard(async () => {
      const call = callOf(context);
      const records = await this.records(call.owner, params.id);
      const turn = records.messages.findLast((message) => message.sender === 'AI');
      if (!turn?.processing) {
        throw new TaskNotCancelableError({ message: 'the task is not working on a message: nothing to cancel' });
      }
      await this.deps.starter.cancel(call.owner, records.conversationId);
      const waited = AbortSignal.any([call.signal, AbortSignal.timeout(this.deps.cancelWaitMs)]);
      await this.followToEnd(turn.id, waited);
      return taskFromRecords(await this.records(call.owner, records.conversationId), this.deps.baseUrl);
    });
  }

  resubscribe(params: SubscribeToTaskRequest, context: ServerCallContext): AsyncGenerator<StreamResponse> {
    return this.guardStream(() => this.rejoin(params.id, callOf(context)));
  }

  async listTasks(): Promise<ListTasksResponse> {
    throw new UnsupportedOperationError({ message: 'listing tasks is not supported' });
  }

  async createTaskPushNotificationConfig(): Promise<TaskPushNotificationConfig> {
    throw pushNotSupported();
  }

  async getTaskPushNotificationConfig(): Promise<TaskPushNotificationConfig> {
    throw pushNotSupported();
  }

  async listTaskPushNotificationConfigs(): Promise<ListTaskPushNotificationConfigsResponse> {
    throw pushNotSupported();
  }

  async deleteTaskPushNotificationConfig(): Promise<void> {
    throw pushNotSupported();
  }

  /** `message/stream`: the task (`submitted`, earlier turns' artifacts), then the turn's events live. */
  private async *streamTurn(params: SendMessageRequest, call: A2aCall): AsyncGenerator<StreamResponse> {
    const started = await this.start(call.owner, params);
    const records = await this.records(call.owner, started.conversationId);
    const opening = task(
      started.conversationId,
      status(TaskState.TASK_STATE_SUBMITTED, new Date().toISOString()),
      storedArtifacts(records, this.deps.baseUrl, started.runId),
      sentHistory(params.message as Message, started.conversationId, params.configuration?.historyLength),
    );
    const events = this.eventsOf(started.conversationId, started.runId);
    let opened = false;
    for await (const { offset, chunk } of this.chunks(started.runId, STREAM_START, FOLLOW_QUIET_MS, call.signal)) {
      const produced = await this.translate(events, call.owner, offset, chunk);
      if (!opened) produced.unshift(taskEvent(opening));
      opened = true;
      yield* identified(call, offset, produced);
    }
    if (!events.ended) yield* this.closingStatus(call, started.conversationId);
  }

  /**
   * `tasks/resubscribe`: folds the current turn's log; a `Last-Event-ID` among its events resumes after it, anything
   * else gets the task as it stands; then every later event. A turn whose log expired gets the stored task.
   */
  private async *rejoin(taskId: string, call: A2aCall): AsyncGenerator<StreamResponse> {
    const records = await this.records(call.owner, taskId);
    const turn = records.messages.findLast((message) => message.sender === 'AI');
    if (!turn || (await this.deps.runStream.state(turn.id)) === 'absent') {
      call.eventId = undefined;
      yield taskEvent(taskFromRecords(records, this.deps.baseUrl));
      return;
    }
    const events = this.eventsOf(records.conversationId, turn.id);
    const folded = yield* this.foldThenResume(call, events, records, turn.id, turn.updatedAt.toISOString());
    if (!events.ended) {
      for await (const { offset, chunk } of this.chunks(turn.id, folded, FOLLOW_QUIET_MS, call.signal)) {
        yield* identified(call, offset, await this.translate(events, call.owner, offset, chunk));
      }
    }
    if (!events.ended) yield* this.closingStatus(call, records.conversationId);
  }

  /** Folds the chunks there now, yielding those after `Last-Event-ID`'s chunk, else a snapshot; returns the offset. */
  private async *foldThenResume(
    call: A2aCall,
    events: TurnEvents,
    records: ConversationRecords,
    runId: string,
    submittedAt: string,
  ): AsyncGenerator<StreamResponse, string> {
    const position = call.lastEventId;
    let resumed = false;
    let folded = STREAM_START;
    for await (const { offset, chunk } of this.chunks(runId, STREAM_START, NOW_MS, call.signal, true)) {
      const produced = await this.translate(events, call.owner, offset, chunk);
      folded = offset;
      if (resumed) {
        yield* identified(call, offset, produced);
      } else if (offset === position?.offset) {
        resumed = true;
        yield* identified(call, offset, produced, position.index ?? Infinity);
      }
    }
    if (!resumed) {
      const snapshot = task(
        records.conversationId,
        events.status(submittedAt),
        [...storedArtifacts(records, this.deps.baseUrl, runId), ...events.artifacts()],
        taskFromRecords(records, this.deps.baseUrl).history,
      );
      call.eventId = folded === STREAM_START ? undefined : folded;
      yield taskEvent(snapshot);
    }
    return folded;
  }

  /** A log that ended without a final chunk (it cannot, but a stream must end with a state): the stored one. */
  private async *closingStatus(call: A2aCall, conversationId: string): AsyncGenerator<StreamResponse> {
    if (call.signal.aborted) return;
    const stored = taskFromRecords(await this.records(call.owner, conversationId), this.deps.baseUrl, 0);
    call.eventId = undefined;
    yield taskEvent(stored);
  }

  /** The run's chunks after `after`; `untilQuiet`: only what is there now. */
  private async *chunks(
    runId: string,
    after: string,
    quietMs: number,
    signal: AbortSignal,
    untilQuiet = false,
  ): AsyncGenerator<{ offset: string; chunk: ChatCompletionChunk }> {
    for await (const event of followRun(this.deps.runStream, runId, { after, quietMs, signal })) {
      if (event.kind === 'chunk') yield event;
      else if (untilQuiet) return;
    }
  }

  /** A chunk's events; an unfinished end asks the database whether it was a cancel (one query). */
  private async translate(
    events: TurnEvents,
    owner: ConversationOwner,
    offset: string,
    chunk: ChatCompletionChunk,
  ): Promise<StreamResponse[]> {
    const cancelled = endsUnfinished(chunk) && (await this.deps.reads.cancelRequested(owner, events.runId));
    return events.translate(offset, chunk, cancelled);
  }

  private async followToEnd(runId: string, signal: AbortSignal): Promise<void> {
    for await (const _ of this.chunks(runId, STREAM_START, FOLLOW_QUIET_MS, signal)) {
      // Only the end matters.
    }
  }

  private eventsOf(conversationId: string, runId: string): TurnEvents {
    return new TurnEvents({ conversationId, messageId: runId }, this.deps.baseUrl);
  }

  /** The owner's conversation; -32001 for an id that is not one, or not theirs. */
  private async records(owner: ConversationOwner, taskId: string): Promise<ConversationRecords> {
    const records = isUuid(taskId) ? await this.deps.reads.records(owner, taskId.toLowerCase()) : null;
    if (!records) throw new TaskNotFoundError({ message: 'no such task' });
    return records;
  }

  /** Validates the message, stores its files, starts the turn; a refusal leaves no file stored. */
  private async start(owner: ConversationOwner, params: SendMessageRequest): Promise<StartedTurn> {
    const input = readTurnInput(params);
    return withInlineFiles(this.deps.files, owner, input.files, async (stored) => {
      refuseUnreadable(stored);
      return this.deps.starter.start(owner, {
        ...(input.conversationId ? { conversationId: input.conversationId } : {}),
        text: input.text,
        files: stored.map(({ fileId }) => ({ fileId })),
        options: input.options,
      });
    });
  }

  private async guard<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw toA2aError(error, this.deps.logger);
    }
  }

  private async *guardStream(run: () => AsyncGenerator<StreamResponse>): AsyncGenerator<StreamResponse> {
    try {
      yield* run();
    } catch (error) {
      throw toA2aError(error, this.deps.logger);
    }
  }
}

/** A chunk's events after `afterIndex`, each with its SSE id (`<offset>.<index>`, the last one just `<offset>`). */
function* identified(call: A2aCall, offset: string, events: StreamResponse[], afterIndex = -1) {
  for (let index = afterIndex + 1; index < events.length; index += 1) {
    call.eventId = index === events.length - 1 ? offset : `${offset}.${index}`;
    yield events[index] as StreamResponse;
  }
}

/** A file the agent cannot read is -32005 (document 3): better refused now than ignored by the turn. */
function refuseUnreadable(files: StoredInlineFile[]): void {
  const unreadable = files.find((file) => formatOf(file.mimeType, file.filename) === 'other');
  if (unreadable) {
    throw new ContentTypeNotSupportedError({
      message: `${unreadable.filename}: the agent cannot read files of type ${unreadable.mimeType}`,
    });
  }
}

function pushNotSupported(): Error {
  return new PushNotificationNotSupportedError({ message: 'push notifications are not supported' });
}
