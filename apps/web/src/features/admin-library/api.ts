import { ApiRequestError, apiJson } from '../../lib/api';

/** A library item as `GET /api/v1/admin/library` lists it (docs/admin.md, "Catalog and library over HTTP"). */
export interface LibraryItem {
  itemId: string;
  filepath: string;
  title: string;
  kind: 'file' | 'prompt_template';
  description: string | null;
  mimeType: string;
  bytes: number;
  /** Prompt templates only: their text. */
  content?: string;
  createdAt: string;
  updatedAt: string;
}

export interface LibraryPage {
  items: LibraryItem[];
  total: number;
  limit: number;
  page: number;
  hasMore: boolean;
}

export interface NewLibraryFile {
  filepath: string;
  title?: string;
  description?: string;
  mimeType?: string;
  file: Blob;
}

export interface NewLibraryTemplate {
  filepath: string;
  title: string;
  text: string;
  description?: string;
}

export const PAGE_SIZE = 25;
export const LIBRARY_KEY = ['admin', 'library'] as const;

const BASE = '/api/v1/admin/library';

export function listLibrary(token: string, page: number): Promise<LibraryPage> {
  return apiJson<LibraryPage>(`${BASE}?limit=${PAGE_SIZE}&page=${page}`, token);
}

/**
 * `multipart/form-data`: the text fields first (the filepath is checked before a byte is stored), then the one
 * `file` part; the browser sets the boundary.
 */
export function uploadLibraryFile(token: string, input: NewLibraryFile): Promise<LibraryItem> {
  const body = new FormData();
  body.append('filepath', input.filepath);
  if (input.title) body.append('title', input.title);
  if (input.description) body.append('description', input.description);
  if (input.mimeType) body.append('mimeType', input.mimeType);
  body.append('file', input.file);
  return apiJson<LibraryItem>(`${BASE}/files`, token, { method: 'POST', body });
}

export function addLibraryTemplate(token: string, input: NewLibraryTemplate): Promise<LibraryItem> {
  return apiJson<LibraryItem>(`${BASE}/templates`, token, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(input),
  });
}

/** By id: a filepath has `/` in it. */
export function deleteLibraryItem(token: string, itemId: string): Promise<unknown> {
  return apiJson(`${BASE}/${encodeURIComponent(itemId)}`, token, { method: 'DELETE' });
}

export type LibraryField = 'filepath' | 'title' | 'description' | 'mimeType' | 'text' | 'file';

/** Which field a refusal is about: a taken filepath (409) or the field its message names. */
export function refusedField(error: Error): LibraryField | undefined {
  if (!(error instanceof ApiRequestError)) return undefined;
  if (error.status === 409) return 'filepath';
  if (error.status === 413) return 'file';
  if (error.code !== 'invalid_parameter') return undefined;
  const message = error.message;
  if (/^(the )?filepath/.test(message)) return 'filepath';
  if (message.startsWith('title')) return 'title';
  if (message.startsWith('description')) return 'description';
  if (message.startsWith('mimeType')) return 'mimeType';
  if (/^(text|a template's text)/.test(message)) return 'text';
  return undefined;
}
