import { apiJson } from '../../lib/api';

/** `GET /api/v1/search` (docs/chat.md, "Message search"). */
export interface SearchResult {
  conversationId: string;
  conversationTitle: string;
  messageId: string;
  sender: 'User' | 'AI';
  snippet: string;
  createdAt: string;
}

export interface SearchPage {
  results: SearchResult[];
  hasMore: boolean;
  cursor?: string;
}

export function searchMessages(token: string, q: string, cursor?: string): Promise<SearchPage> {
  const query = new URLSearchParams({ q, limit: '20' });
  if (cursor) query.set('cursor', cursor);
  return apiJson<SearchPage>(`/api/v1/search?${query}`, token);
}
