import { apiJson } from '../../../lib/api';

/** An item of `GET /api/v1/library`: a shared file (attached by `filepath`) or a prompt template. */
export interface LibraryItem {
  filepath: string;
  title: string;
  kind: 'file' | 'prompt_template';
  description?: string;
  mimeType: string;
  bytes: number;
  createdAt: string;
  /** A prompt template's text, which starts the message. */
  content?: string;
}

export interface LibraryPage {
  items: LibraryItem[];
  hasMore: boolean;
  cursor?: string;
}

export function loadLibrary(token: string, cursor?: string): Promise<LibraryPage> {
  const query = new URLSearchParams({ limit: '50', order: 'asc' });
  if (cursor) query.set('cursor', cursor);
  return apiJson<LibraryPage>(`/api/v1/library?${query}`, token);
}
