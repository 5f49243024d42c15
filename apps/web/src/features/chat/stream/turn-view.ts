import type { ChatCompletionChunk, Deliverable, Interaction, Task, UiResource } from '@fed/contracts/chat-chunk';

/** What the app shows of one assistant turn, built from its chunks alone (document 2, "Events"). */
export interface TurnView {
  conversationId?: string;
  messageId?: string;
  text: string;
  /** In the order they first appeared; a later update of a task replaces it in place. */
  tasks: Task[];
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

export const emptyTurn: TurnView = { text: '', tasks: [], uiResources: [], deliverables: [], phase: 'streaming' };

/** Run-stream entry ids are `<ms>-<seq>`; true when `a` comes after `b`. */
export function isAfter(a: string, b: string): boolean {
  const [aMs = 0, aSeq = 0] = a.split('-').map(Number);
  const [bMs = 0, bSeq = 0] = b.split('-').map(Number);
  return aMs !== bMs ? aMs > bMs : aSeq > bSeq;
}

const taskKey = (task: Task) => task.callId ?? `${task.actionType}@${task.createdAt}`;

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
  if (delta.tasks?.length) {
    const tasks = [...view.tasks];
    for (const task of delta.tasks) {
      const at = tasks.findIndex((known) => taskKey(known) === taskKey(task));
      if (at < 0) tasks.push(task);
      else tasks[at] = task;
    }
    next.tasks = tasks;
  }
  if (delta.interaction) next.interaction = delta.interaction;
  if (delta.uiResource) next.uiResources = [...view.uiResources, delta.uiResource];
  if (choice.deliverables) next.deliverables = choice.deliverables;
  if (choice.finishReason === 'error') {
    next.phase = 'failed';
    next.error = chunk.error ?? { code: 'agent_failed', message: 'The answer failed.' };
  } else if (choice.finishReason === 'stop') {
    next.phase = choice.status === 'unfinished' ? 'unfinished' : 'completed';
  }
  return next;
}
