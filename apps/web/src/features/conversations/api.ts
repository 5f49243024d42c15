import { apiJson } from '../../lib/api';

/** Document 2, "Conversation". */
export interface Conversation {
  conversationId: string;
  title: string;
  createdAt: string;
  updatedAt: string;
  archived?: boolean;
}

export type ListMode = 'active' | 'archive';

export interface Page {
  hasMore: boolean;
  cursor?: string;
}
export type ConversationPage = Page & { conversations: Conversation[] };

const PAGE_SIZE = 50;

export function listConversations(token: string, mode: ListMode, cursor?: string): Promise<ConversationPage> {
  const query = new URLSearchParams({ limit: String(PAGE_SIZE), mode });
  if (cursor) query.set('cursor', cursor);
  return apiJson<ConversationPage>(`/api/v1/conversations?${query}`, token);
}

const path = (conversationId: string) => `/api/v1/conversations/${encodeURIComponent(conversationId)}`;
const json = (method: string, body?: unknown): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json' },
  ...(body === undefined ? {} : { body: JSON.stringify(body) }),
});

export const renameConversation = (token: string, conversationId: string, title: string) =>
  apiJson<Conversation>(path(conversationId), token, json('PATCH', { title }));

export const deleteConversation = (token: string, conversationId: string) =>
  apiJson<{ deleted: true }>(path(conversationId), token, json('DELETE'));

export const restoreConversation = (token: string, conversationId: string) =>
  apiJson<{ restored: true }>(`${path(conversationId)}/restore`, token, json('POST'));
