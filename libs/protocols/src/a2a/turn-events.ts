import { type Artifact, type StreamResponse, TaskState, type TaskStatus } from '@a2a-js/sdk';
import { type ChatCompletionChunk, type Interaction, type Task as ChatTask } from '@fed/contracts';
import {
  FAILED_MESSAGE,
  type TurnEnding,
  type TurnRef,
  agentMessage,
  artifactEvent,
  endingStatus,
  fileArtifact,
  interactionArtifact,
  resultArtifact,
  status,
  statusEvent,
  uiResourceArtifact,
} from './a2a-wire';

/**
 * One turn's chat stream (docs/chat.md "Stream entries") as A2A events, chunk by chunk, and the turn
 * as it stands after the chunks seen so far (for a resubscribe's snapshot). Pure: the same chunks give
 * the same events, which is what lets a stream resume after any offset by folding the ones before it.
 *
 * - a text piece is a `working` status whose message is the piece (`metadata.kind: 'text'`);
 * - a task update is a `working` status whose message is the task's title (`metadata.kind: 'task'`);
 * - display UI: its text (the `altText`) as a `working` status, then the `ui-resource-` artifact;
 * - an interaction: the `interaction-` artifact; the final chunk then says `input-required`;
 * - the final chunk: a `file-` artifact per deliverable, the `result-` artifact (the whole answer) when
 *   the turn completed, then the final status (`completed`, `input-required`, `canceled`, `failed`).
 *   An unfinished stop is `canceled` when the turn was cancelled, otherwise (the step limit) `completed`
 *   with what the turn had, its result marked `unfinished`; the chunk does not say which, the caller does.
 */
export class TurnEvents {
  private answer = '';
  private interaction: Interaction | undefined;
  /** The tool call whose result task announced the display UI that follows it on the stream. */
  private uiCallId: string | undefined;
  private uiCount = 0;
  private readonly folded = new Map<string, Artifact>();
  private latest: TaskStatus | undefined;
  private finished = false;

  constructor(
    private readonly turn: TurnRef,
    private readonly baseUrl: string,
  ) {}

  /**
   * The events of one chunk, in order. `offset` (the chunk's run-stream offset) names status messages;
   * `cancelled` (whether the turn's cancel was requested) matters only for a chunk `endsUnfinished`.
   */
  translate(offset: string, chunk: ChatCompletionChunk, cancelled = false): StreamResponse[] {
    const [choice] = chunk.choices;
    const at = chunk.createdAt;
    const events: StreamResponse[] = [];
    const messageId = (n: number) => `${this.turn.messageId}-${offset}-${n}`;
    for (const task of choice.delta.tasks ?? []) {
      this.noteUiTask(task);
      if (task.title) {
        events.push(
          this.working(
            at,
            messageId(events.length),
            task.title,
            withoutUndefined({ kind: 'task', callId: task.callId, actionType: task.actionType, status: task.status }),
          ),
        );
      }
    }
    if (choice.delta.content) {
      this.answer += choice.delta.content;
      events.push(this.working(at, messageId(events.length), choice.delta.content, { kind: 'text' }));
    }
    if (choice.delta.uiResource) {
      const resource = choice.delta.uiResource;
      this.uiCount += 1;
      const key =
        (resource.type === 'html' ? resource.tool_call_id : undefined) ??
        this.uiCallId ??
        `${this.turn.messageId}-${this.uiCount}`;
      this.uiCallId = undefined;
      events.push(this.artifact(uiResourceArtifact(this.turn, key, resource)));
    }
    if (choice.delta.interaction) {
      this.interaction = choice.delta.interaction;
      events.push(this.artifact(interactionArtifact(this.turn, choice.delta.interaction)));
    }
    if (choice.finishReason !== null) events.push(...this.end(chunk, cancelled));
    return events;
  }

  /** The turn's run (its assistant message). */
  get runId(): string {
    return this.turn.messageId;
  }

  /** Whether the final chunk has been seen. */
  get ended(): boolean {
    return this.finished;
  }

  /** The turn's artifacts so far, each once (a later one with the same id replaces it). */
  artifacts(): Artifact[] {
    return [...this.folded.values()];
  }

  /**
   * The turn's status so far: `submitted` before anything was shown, the final status once ended, and
   * otherwise `working` with the answer so far (the pieces a resubscribing client missed, in one).
   */
  status(submittedAt: string): TaskStatus {
    if (this.finished && this.latest) return this.latest;
    if (!this.latest) return status(TaskState.TASK_STATE_SUBMITTED, submittedAt);
    const message = this.answer
      ? agentMessage(this.turn.conversationId, `${this.turn.messageId}-so-far`, this.answer, { kind: 'text' })
      : this.latest.message;
    return status(TaskState.TASK_STATE_WORKING, this.latest.timestamp ?? submittedAt, message);
  }

  private end(chunk: ChatCompletionChunk, cancelled: boolean): StreamResponse[] {
    const [choice] = chunk.choices;
    const events: StreamResponse[] = [];
    for (const file of choice.deliverables ?? []) {
      events.push(this.artifact(fileArtifact(this.baseUrl, this.turn, file)));
    }
    const ending = this.endingOf(chunk, cancelled);
    if (ending.kind === 'completed') {
      events.push(this.artifact(resultArtifact(this.turn, this.answer, ending.unfinished)));
    }
    this.finished = true;
    this.latest = endingStatus(this.turn, ending, chunk.createdAt);
    events.push(statusEvent(this.turn.conversationId, this.latest));
    return events;
  }

  private endingOf(chunk: ChatCompletionChunk, cancelled: boolean): TurnEnding {
    const [choice] = chunk.choices;
    if (choice.finishReason === 'error') return { kind: 'failed', message: chunk.error?.message ?? FAILED_MESSAGE };
    if (endsUnfinished(chunk)) {
      return cancelled ? { kind: 'canceled' } : { kind: 'completed', text: this.answer, unfinished: true };
    }
    if (this.interaction) return { kind: 'input-required', interaction: this.interaction };
    return { kind: 'completed', text: this.answer, unfinished: false };
  }

  private noteUiTask(task: ChatTask): void {
    const metadata = task.metadata ?? {};
    if (metadata.uiResource !== undefined && metadata.interaction_type === undefined) this.uiCallId = task.callId;
  }

  private working(at: string, messageId: string, text: string, metadata: Record<string, unknown>): StreamResponse {
    this.latest = status(
      TaskState.TASK_STATE_WORKING,
      at,
      agentMessage(this.turn.conversationId, messageId, text, metadata),
    );
    return statusEvent(this.turn.conversationId, this.latest);
  }

  private artifact(value: Artifact): StreamResponse {
    this.folded.delete(value.artifactId);
    this.folded.set(value.artifactId, value);
    return artifactEvent(this.turn.conversationId, value);
  }
}

/** A final `stop` chunk of a turn that did not finish its answer: cancelled, or stopped by the step limit. */
export function endsUnfinished(chunk: ChatCompletionChunk): boolean {
  const [choice] = chunk.choices;
  return choice.finishReason === 'stop' && choice.status === 'unfinished';
}

function withoutUndefined(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined));
}
