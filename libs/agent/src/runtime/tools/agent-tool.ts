import type { Deliverable, Interaction, TaskFile, UiResource } from '@fed/contracts';

/** Who and what a tool runs for. */
export interface ToolContext {
  tenantId: string | null;
  userId: string;
  conversationId: string;
  messageId: string;
  /** Nothing of a private turn may be kept beyond the conversation (shared memory included). */
  privateMode: boolean;
  /** Aborted when the turn is cancelled, times out or its runtime stops. */
  signal: AbortSignal;
  /** The model's id of this tool call (`callId` of its tasks, `tool_call_id` of an HTML UI resource). */
  callId: string;
  /** Where the turn's output files go (`deliverables[]` of the final chunk and of history). */
  deliverables: DeliverableSink;
}

/** An output file of the turn, as a tool hands it over. */
export interface DeliverableInput {
  /** Relative path inside the turn's workspace (`report.md`, `charts/q3.csv`). */
  filepath: string;
  content: Buffer | string;
  /** Omitted: guessed from the path. */
  mimeType?: string;
  /** The turn's main result; the last file saved as primary wins, otherwise the first file is primary. */
  primary?: boolean;
}

/** Stores a turn's output files; saving the same path again replaces the file. */
export interface DeliverableSink {
  save(file: DeliverableInput): Promise<Deliverable>;
}

/**
 * A UI resource a tool returns. The loop stores it (the HTML only for retrieval, never for a model)
 * and shows it: display-only in `delta.uiResource`, with `altText` as the chunk's `delta.content`.
 */
export interface ToolUiResource {
  /** As the stream shows it; an `html` resource's `tool_call_id` is the call's id. */
  resource: UiResource;
  /** `html` resources: what `GET .../ui-resources/:toolCallId` returns. */
  html?: string;
  /** The tool returned a UI that cannot be served (refused in form): only its alternative text is shown. */
  unservable?: true;
}

/** What a task shows the user (title and description of `tool_start` and `tool_result`). */
export interface ToolLabel {
  title: string;
  description?: string;
}

export type ToolOutcome =
  /** `content` is given to the model as the tool's result; `files` are the result task's `files[]`. */
  | { status: 'completed'; content: string; label: ToolLabel; uiResource?: ToolUiResource; files?: TaskFile[] }
  /** The model gets `error` as the result and may try something else. */
  | { status: 'failed'; error: string; label: ToolLabel }
  /**
   * The turn ends waiting for the user; their next message is the tool's result. An
   * `interaction.uiResource` of type `html` (first-party choice card, question form) comes with its `html`.
   */
  | { status: 'interaction'; interaction: Interaction; label: ToolLabel; html?: string };

/**
 * A tool the model may call. The loop validates arguments against `parameters` (JSON Schema) before
 * `run`, shows the call as tasks and gives the outcome back to the model; tools know nothing of it.
 */
export interface AgentTool<Args = Record<string, unknown>> {
  /** `^[a-zA-Z0-9_-]{1,64}$`, as the chat-completions API requires. */
  readonly name: string;
  /** For the model: what the tool does and when to use it. */
  readonly description: string;
  /** JSON Schema of the arguments object. */
  readonly parameters: Record<string, unknown>;
  /** Whether the tool is offered in a turn of these options; absent: always. */
  offered?(turn: { privateMode: boolean; agentId?: string }): boolean;
  /** The `tool_start` task's words for a call with these (valid) arguments. */
  describe(args: Args): ToolLabel;
  run(args: Args, context: ToolContext): Promise<ToolOutcome>;
}

/** Quotes user or model words in a task description, shortened to stay readable. */
export function quoted(text: string, max = 80): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return `“${flat.length > max ? `${flat.slice(0, max - 1)}…` : flat}”`;
}
