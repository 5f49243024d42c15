import {
  type ChatCompletionChunk,
  type Deliverable,
  type Interaction,
  type Task,
  type TaskFile,
  type UiResource,
} from '@fed/contracts';

/** A deliverable of the result: `size` always present (document 3: "file metadata including size"). */
export type ExecuteChatDeliverable = Omit<Deliverable, 'size'> & { size: number };

export type ExecutionStep = Omit<Task, 'files'> & { files: TaskFile[] };

/** Document 3, "MCP execute_chat result", with the ids a client needs for `get_file_content` and the turn's ending. */
export interface ExecuteChatResult {
  /** The answer's text as streamed (equal to the stored message). */
  text: string;
  conversationId: string;
  /** The assistant message (the turn); `get_file_content` takes it to pick a deliverable of this turn. */
  messageId: string;
  deliverables: ExecuteChatDeliverable[];
  executionSteps: ExecutionStep[];
  /** The reply the turn asks for; its UI, if any, is `interaction.uiResource`. */
  interaction?: Interaction;
  /** Display-only UI, in order of appearance (never the interaction's). */
  uiResources: UiResource[];
  unfinished?: true;
  /** `cancel_chat` (or the chat API's cancel) ended the turn; what it had is returned. */
  cancelled?: true;
}

export type TurnOutcome =
  | { kind: 'answered'; result: ExecuteChatResult }
  | { kind: 'failed'; code: string; message: string }
  /** The run's log ended without a final chunk (it cannot, unless the log expired under us). */
  | { kind: 'lost' };

/** Folds one turn's chunks (docs/chat.md "Stream entries") into the execute_chat result. */
export class TurnCollector {
  private text = '';
  private readonly steps: ExecutionStep[] = [];
  private readonly uiResources: UiResource[] = [];
  private interaction: Interaction | undefined;
  private final: ChatCompletionChunk | undefined;

  constructor(
    private readonly conversationId: string,
    private readonly messageId: string,
  ) {}

  add(chunk: ChatCompletionChunk): void {
    const [choice] = chunk.choices;
    const { delta } = choice;
    if (delta.content) this.text += delta.content;
    for (const task of delta.tasks ?? []) this.steps.push({ ...task, files: task.files ?? [] });
    if (delta.uiResource) this.uiResources.push(delta.uiResource);
    if (delta.interaction) this.interaction = delta.interaction;
    if (choice.finishReason !== null) this.final = chunk;
  }

  get currentStep(): string | undefined {
    const step = this.steps.at(-1);
    return step?.title ?? step?.actionType;
  }

  outcome(): TurnOutcome {
    if (!this.final) return { kind: 'lost' };
    const [choice] = this.final.choices;
    if (choice.finishReason === 'error') {
      const error = this.final.error ?? { code: 'agent_failed', message: 'the turn failed' };
      return { kind: 'failed', code: error.code, message: error.message };
    }
    const result: ExecuteChatResult = {
      text: this.text,
      conversationId: this.conversationId,
      messageId: this.messageId,
      deliverables: (choice.deliverables ?? []).map((file) => ({ ...file, size: file.size ?? 0 })),
      executionSteps: this.steps,
      ...(this.interaction ? { interaction: this.interaction } : {}),
      uiResources: this.uiResources,
      ...(choice.status === 'unfinished' ? { unfinished: true as const } : {}),
    };
    return { kind: 'answered', result };
  }
}
