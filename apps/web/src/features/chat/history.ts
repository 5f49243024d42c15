import type { Deliverable, Interaction, Task } from '@fed/contracts/chat-chunk';
import { apiJson } from '../../lib/api';
import { type TurnView, emptyTurn, historyUiResources, withTasks } from './stream/turn-view';

/** Document 2, "Message (history)". */
export interface HistoryMessage {
  conversationId: string;
  messageId: string;
  sender: 'User' | 'AI';
  text: string;
  createdAt: string;
  status: { processing: boolean; unfinished: boolean };
  tasks: Task[];
  deliverables?: Deliverable[];
  files?: { fileId: string; mimeType: string }[];
}

export type ChatItem =
  { kind: 'user'; key: string; text: string; files: string[] } | { kind: 'assistant'; key: string; view: TurnView };

/** Messages per history page: the latest page opens a conversation, older ones load as it scrolls up. */
export const HISTORY_PAGE = 100;

export interface HistoryPage {
  /** Oldest first. */
  messages: HistoryMessage[];
  /** The cursor of the next older page, while there is one. */
  older?: string;
}

/** One page of a conversation's messages, newest page first (`order=desc`), returned oldest first. */
export async function loadHistory(token: string, conversationId: string, cursor?: string): Promise<HistoryPage> {
  const query = new URLSearchParams({ limit: String(HISTORY_PAGE), order: 'desc' });
  if (cursor) query.set('cursor', cursor);
  const page = await apiJson<{ messages: HistoryMessage[]; hasMore: boolean; cursor?: string | null }>(
    `/api/v1/conversations/${encodeURIComponent(conversationId)}/messages?${query}`,
    token,
  );
  return { messages: [...page.messages].reverse(), ...(page.hasMore && page.cursor ? { older: page.cursor } : {}) };
}

export function historyItem(message: HistoryMessage): ChatItem {
  if (message.sender === 'User') {
    // History names an attachment by id and type only: its type is what can be shown.
    const files = (message.files ?? []).map((file) => file.mimeType);
    return { kind: 'user', key: message.messageId, text: message.text, files };
  }
  const view: TurnView = {
    ...emptyTurn,
    conversationId: message.conversationId,
    messageId: message.messageId,
    text: message.text,
    steps: withTasks([], message.tasks),
    uiResources: historyUiResources(message.tasks).display,
    deliverables: message.deliverables ?? [],
    phase: message.status.processing ? 'streaming' : message.status.unfinished ? 'unfinished' : 'completed',
  };
  const interaction = pendingInteraction(message.tasks);
  return { kind: 'assistant', key: message.messageId, view: interaction ? { ...view, interaction } : view };
}

/** In history a request is a pending task whose metadata names it (document 2, "Task object"). */
function pendingInteraction(tasks: Task[]): Interaction | undefined {
  const task = [...tasks].reverse().find((t) => t.status === 'pending' && t.metadata?.interaction_type);
  if (!task) return undefined;
  const type = task.metadata?.interaction_type;
  if (type !== 'choice' && type !== 'confirmation' && type !== 'question') return undefined;
  const options = task.metadata?.options;
  const uiResource = historyUiResources([task]).input;
  return {
    interactionType: type,
    content: task.content ?? '',
    ...(Array.isArray(options) ? { options: options.filter((o): o is string => typeof o === 'string') } : {}),
    ...(uiResource ? { uiResource } : {}),
  };
}
