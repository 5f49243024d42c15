import { ApiError } from '../errors';

export type SortOrder = 'asc' | 'desc';
export type CursorKey = string | number;

/** What a cursor remembers: where the last page ended, in which list and which order. */
export interface CursorPosition {
  /** The list the cursor belongs to, e.g. `conversations:archive`; a cursor is refused elsewhere. */
  list: string;
  order: SortOrder;
  /** Sort key of the last item returned (e.g. `[updatedAt, id]`). */
  after: CursorKey[];
}

export interface PageParams {
  limit: number;
  order: SortOrder;
  /** Decoded position, absent on the first page. */
  after?: CursorKey[];
}

export interface CursorPage<T> {
  items: T[];
  hasMore: boolean;
  cursor?: string;
}

/** A list request's `limit`, `cursor` and `order`, as the request DTO validated them. */
export interface PageQuery {
  limit?: number;
  cursor?: string;
  order?: SortOrder;
}

export interface PageRules {
  /** Identifies the list, so a cursor of another list (or mode) is refused. */
  list: string;
  defaultLimit?: number;
  defaultOrder?: SortOrder;
}

const CURSOR_VERSION = 1;
const MAX_CURSOR_LENGTH = 1024;
const MAX_KEY_PARTS = 4;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

export function encodeCursor(position: CursorPosition): string {
  const payload = { v: CURSOR_VERSION, l: position.list, o: position.order, a: position.after };
  return Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
}

/** Decodes a cursor of `list`; anything that is not a value we produced is a 400 `invalid_cursor`. */
export function decodeCursor(raw: string, list: string): CursorPosition {
  const refuse = (): never => {
    throw new ApiError('invalid_cursor', 'cursor must be a value returned by a previous response of this list');
  };
  if (raw.length === 0 || raw.length > MAX_CURSOR_LENGTH || !BASE64URL.test(raw)) refuse();
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    return refuse();
  }
  if (typeof payload !== 'object' || payload === null) return refuse();
  const { v, l, o, a } = payload as Record<string, unknown>;
  if (v !== CURSOR_VERSION || l !== list || (o !== 'asc' && o !== 'desc')) return refuse();
  if (!Array.isArray(a) || a.length === 0 || a.length > MAX_KEY_PARTS) return refuse();
  for (const part of a as unknown[]) {
    const ok = (typeof part === 'string' && part.length <= 256) || (typeof part === 'number' && Number.isFinite(part));
    if (!ok) refuse();
  }
  return { list, order: o, after: a as CursorKey[] };
}

/**
 * The page a list request asks for: its defaults filled in and its cursor decoded for `rules.list`.
 * A cursor of another list, or reused with another order, is a 400 `invalid_cursor`.
 */
export function toPageParams(query: PageQuery, rules: PageRules): PageParams {
  const limit = query.limit ?? rules.defaultLimit ?? 50;
  const order = query.order ?? rules.defaultOrder ?? 'desc';
  if (query.cursor === undefined) return { limit, order };
  const position = decodeCursor(query.cursor, rules.list);
  if (position.order !== order) {
    throw new ApiError('invalid_cursor', 'order must not change while a cursor is reused');
  }
  return { limit, order, after: position.after };
}

/**
 * Turns `limit + 1` fetched rows into a page: the extra row only proves there is more.
 * `keyOf` gives the sort key the repository continues after.
 */
export function toCursorPage<T>(
  rows: readonly T[],
  params: PageParams,
  list: string,
  keyOf: (row: T) => CursorKey[],
): CursorPage<T> {
  const hasMore = rows.length > params.limit;
  const items = hasMore ? rows.slice(0, params.limit) : rows.slice();
  if (!hasMore || items.length === 0) return { items, hasMore: false };
  const last = items[items.length - 1] as T;
  return { items, hasMore, cursor: encodeCursor({ list, order: params.order, after: keyOf(last) }) };
}
