import type { Interaction } from '@fed/contracts';

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
}

/** What a task shows the user (title and description of `tool_start` and `tool_result`). */
export interface ToolLabel {
  title: string;
  description?: string;
}

export type ToolOutcome =
  /** `content` is given to the model as the tool's result. */
  | { status: 'completed'; content: string; label: ToolLabel }
  /** The model gets `error` as the result and may try something else. */
  | { status: 'failed'; error: string; label: ToolLabel }
  /** The turn ends waiting for the user; their next message is the tool's result. */
  | { status: 'interaction'; interaction: Interaction; label: ToolLabel };

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
  /** The `tool_start` task's words for a call with these (valid) arguments. */
  describe(args: Args): ToolLabel;
  run(args: Args, context: ToolContext): Promise<ToolOutcome>;
}

/** Quotes user or model words in a task description, shortened to stay readable. */
export function quoted(text: string, max = 80): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return `“${flat.length > max ? `${flat.slice(0, max - 1)}…` : flat}”`;
}
