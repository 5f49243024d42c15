import type { ChatCompletionChunk, Deliverable, Interaction, Task, UiResource } from '@fed/contracts/chat-chunk';

export interface Step {
  key: string;
  /** As it started (a tool's input is described here). */
  first: Task;
  /** Its latest state (a tool's result). */
  latest: Task;
}

/** What the app shows of one assistant turn, built from its chunks alone (document 2, "Events"). */
export interface TurnView {
  conversationId?: string;
  messageId?: string;
  text: string;
  /** The agent's steps in the order they started; the tasks of one tool call (start, result) are one step. */
  steps: Step[];
  interaction?: Interaction;
  uiResources: UiResource[];
  deliverables: Deliverable[];
  phase: 'streaming' | 'completed' | 'unfinished' | 'failed';
  error?: { code: string; message: string };
  /** The SSE `id:` of the last entry applied: a resume asks for what comes after it (`Last-Event-ID`). */
  lastEventId?: string;
}

export type StreamEvent =
  | { kind: 'chunk'; id?: string; chunk: ChatCompletionChunk }
  /** `data: [DONE]`. */
  | { kind: 'done' };

export const emptyTurn: TurnView = { text: '', steps: [], uiResources: [], deliverables: [], phase: 'streaming' };

/** Run-stream entry ids are `<ms>-<seq>`; true when `a` comes after `b`. */
export function isAfter(a: string, b: string): boolean {
  const [aMs = 0, aSeq = 0] = a.split('-').map(Number);
  const [bMs = 0, bSeq = 0] = b.split('-').map(Number);
  return aMs !== bMs ? aMs > bMs : aSeq > bSeq;
}

const taskKey = (task: Task) => task.callId ?? `${task.actionType}@${task.createdAt}`;

/** `steps` with `tasks` applied: a task of a known step updates it, another starts a new one. */
export function withTasks(steps: Step[], tasks: Task[]): Step[] {
  const next = [...steps];
  for (const task of tasks) {
    const key = taskKey(task);
    const at = next.findIndex((step) => step.key === key);
    if (at < 0) next.push({ key, first: task, latest: task });
    else next[at] = { ...next[at]!, latest: task };
  }
  return next;
}

const isUiResource = (value: unknown): value is UiResource => {
  if (typeof value !== 'object' || value === null) return false;
  const resource = value as Record<string, unknown>;
  if (typeof resource.altText !== 'string') return false;
  if (resource.type === 'html') return typeof resource.tool_call_id === 'string';
  return resource.type === 'data' && typeof resource.kind === 'string' && typeof resource.data === 'object';
};

/**
 * History's UI resources (document 2, "Task object": `tasks[].metadata.uiResource`, without HTML): a task with
 * `metadata.interaction_type` beside it carries input UI, which is the request's; the others are display UI.
 */
export function historyUiResources(tasks: readonly Task[]): { display: UiResource[]; input?: UiResource } {
  const display: UiResource[] = [];
  let input: UiResource | undefined;
  for (const task of tasks) {
    const resource = task.metadata?.uiResource;
    if (!isUiResource(resource)) continue;
    if (task.metadata?.interaction_type) input = resource;
    else display.push(resource);
  }
  return { display, ...(input ? { input } : {}) };
}

/**
 * The one place chunks become view state. An entry at or before the last applied one is a repeat (a resumed
 * stream, a second reader) and changes nothing; an entry without an id (the relay's `stream_lost`) always applies.
 */
export function reduceTurn(view: TurnView, event: StreamEvent): TurnView {
  // The relay ends a stream that lost its final chunk with `stream_lost` first; a bare [DONE] is not a whole answer.
  if (event.kind === 'done') return view.phase === 'streaming' ? { ...view, phase: 'unfinished' } : view;
  if (event.id !== undefined && view.lastEventId !== undefined && !isAfter(event.id, view.lastEventId)) return view;
  const { chunk } = event;
  const choice = chunk.choices[0];
  const { delta } = choice;
  const next: TurnView = { ...view, lastEventId: event.id ?? view.lastEventId };
  if (delta.messageInfo) {
    next.conversationId = delta.messageInfo.conversationId;
    next.messageId = delta.messageInfo.messageId;
  }
  if (delta.content) next.text = view.text + delta.content;
  if (delta.tasks?.length) next.steps = withTasks(view.steps, delta.tasks);
  if (delta.interaction) next.interaction = delta.interaction;
  if (delta.uiResource) next.uiResources = [...view.uiResources, delta.uiResource];
  if (choice.deliverables) next.deliverables = choice.deliverables;
  if (choice.finishReason === 'error') {
    next.phase = 'failed';
    // No message of the platform's: the app words it (turn-errors.ts).
    next.error = chunk.error ?? { code: 'agent_failed', message: '' };
  } else if (choice.finishReason === 'stop') {
    next.phase = choice.status === 'unfinished' ? 'unfinished' : 'completed';
  }
  return next;
}
