import type { Deliverable, Interaction, TaskFile, UiResource } from '@fed/contracts';

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

/** A tool's UI resource: stored (HTML only for retrieval, never a model's) and shown with `altText` as content. */
export interface ToolUiResource {
  /** As the stream shows it; an `html` resource's `tool_call_id` is the call's id. */
  resource: UiResource;
  /** `html` resources: what `GET .../ui-resources/:toolCallId` returns. */
  html?: string;
  /** The tool returned a UI that cannot be served (refused in form): only its alternative text is shown. */
  unservable?: true;
  /**
   * An MCP App's tool result as its view gets it (`ui/notifications/tool-result`): the result's content items
   * without the UI's own HTML, and its structured content.
   */
  viewResult?: { content: unknown[]; structuredContent?: unknown };
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
  /** The turn waits for the user, whose next message is the result; an `html` UI resource comes with `html`. */
  | { status: 'interaction'; interaction: Interaction; label: ToolLabel; html?: string };

/** A tool the model may call; the loop validates arguments, shows tasks and returns the outcome to the model. */
export interface AgentTool<Args = Record<string, unknown>> {
  /** `^[a-zA-Z0-9_-]{1,64}$`, as the chat-completions API requires. */
  readonly name: string;
  readonly description: string;
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
