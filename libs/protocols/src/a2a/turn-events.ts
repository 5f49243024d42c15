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
 * One turn's chat stream (docs/chat.md "Stream entries") as A2A events. Pure, so a stream resumes after any offset by
 * folding the chunks before it. Text and task updates are `working` statuses; UI and interactions are artifacts; the
 * final chunk adds file and result artifacts and the final status (an unfinished stop: `canceled` if cancelled, else
 * `completed` marked `unfinished`).
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

  /** One chunk's events; `cancelled` matters only for a chunk `endsUnfinished`. */
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

  get runId(): string {
    return this.turn.messageId;
  }

  get ended(): boolean {
    return this.finished;
  }

  /** The turn's artifacts so far, each once (a later one with the same id replaces it). */
  artifacts(): Artifact[] {
    return [...this.folded.values()];
  }

  /** `submitted` before anything showed, the final status once ended, else `working` with the whole answer so far. */
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
