import { ApiError, isStorableText, isUuid, type PageParams, type PageQuery, parsePageQuery } from '@fed/contracts';

export type ConversationMode = 'active' | 'archive';

/** The spec's Conversation object. */
export interface ConversationResponse {
  conversationId: string;
  title: string;
  createdAt: string;
  updatedAt: string;
  archived?: true;
}

export interface ConversationListResponse {
  conversations: ConversationResponse[];
  hasMore: boolean;
  cursor?: string;
}

export interface ConversationListQuery {
  mode: ConversationMode;
  /** Case-insensitive substring of the title. */
  title?: string;
  page: PageParams;
}

export const MAX_TITLE_CHARACTERS = 200;
// The list cursor's key: `updatedAt` to the microsecond (as PostgreSQL keeps it) and the id.
const TIMESTAMP_KEY = /^[1-9][0-9]{3}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z$/;

/** The cursor list of a mode: the two stores never accept each other's cursors. */
export const conversationList = (mode: ConversationMode) => `conversations:${mode}`;
/** A history cursor belongs to one conversation. */
export const messageList = (conversationId: string) => `messages:${conversationId}`;

export function parseConversationId(raw: unknown): string {
  if (typeof raw !== 'string' || !isUuid(raw)) {
    throw new ApiError('invalid_conversation_id', 'conversationId must be a UUID');
  }
  return raw.toLowerCase();
}

function invalidCursor(): never {
  throw new ApiError('invalid_cursor', 'cursor must be a value returned by a previous response of this list');
}

function isTimestampKey(value: unknown): value is string {
  if (typeof value !== 'string' || !TIMESTAMP_KEY.test(value)) return false;
  // The pattern admits impossible dates (2024-02-30); the database would fail on them.
  const parsed = new Date(value);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 19) === value.slice(0, 19);
}

function singleString(query: Record<string, unknown>, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new ApiError('invalid_parameter', `${name} must be given once, as a string`);
  return value;
}

/** `GET /v1/conversations`: `limit`, `cursor`, `order`, `title`, `mode`. */
export function parseListQuery(query: Record<string, unknown>): ConversationListQuery {
  const rawMode = singleString(query, 'mode') ?? 'active';
  if (rawMode !== 'active' && rawMode !== 'archive') {
    throw new ApiError('invalid_parameter', 'mode must be active or archive');
  }
  const mode: ConversationMode = rawMode;
  const title = singleString(query, 'title');
  if (title !== undefined && (!isStorableText(title) || [...title].length > MAX_TITLE_CHARACTERS)) {
    throw new ApiError('invalid_parameter', `title must be text of at most ${MAX_TITLE_CHARACTERS} characters`);
  }
  const page = parsePageQuery(query as PageQuery, { list: conversationList(mode) });
  if (page.after && (page.after.length !== 2 || !isTimestampKey(page.after[0]) || !isUuid(page.after[1]))) {
    invalidCursor();
  }
  return { mode, title: title === '' ? undefined : title, page };
}

/** `GET /v1/conversations/:conversationId/messages`: `limit`, `cursor`, `order`. */
export function parseMessagesQuery(query: Record<string, unknown>, conversationId: string): PageParams {
  const page = parsePageQuery(query as PageQuery, { list: messageList(conversationId) });
  if (page.after && (page.after.length !== 1 || !isSeqKey(page.after[0]))) invalidCursor();
  return page;
}

/** `PATCH` body: `title`, 1-200 characters (Unicode code points), storable. Other fields are ignored. */
export function parseRenameBody(body: unknown): string {
  const title = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).title : undefined;
  if (title === undefined) throw new ApiError('invalid_request', 'title is required');
  if (typeof title !== 'string') throw new ApiError('invalid_request', 'title must be a string');
  if (title.trim() === '') throw new ApiError('invalid_request', 'title must not be empty');
  if ([...title].length > MAX_TITLE_CHARACTERS) {
    throw new ApiError('invalid_request', `title must be at most ${MAX_TITLE_CHARACTERS} characters`);
  }
  if (!isStorableText(title)) {
    throw new ApiError('invalid_request', 'title must not contain NUL or unpaired surrogate characters');
  }
  return title;
}

function isSeqKey(value: unknown): value is string {
  return typeof value === 'string' && /^[1-9][0-9]{0,17}$/.test(value);
}

export interface ConversationRow {
  id: string;
  title: string;
  createdAt: Date;
  updatedAt: Date;
}

export function toConversationResponse(row: ConversationRow, archived = false): ConversationResponse {
  return {
    conversationId: row.id,
    title: row.title,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    ...(archived ? { archived: true as const } : {}),
  };
}
