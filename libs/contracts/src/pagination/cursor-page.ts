import { ApiError } from '../errors';

export type SortOrder = 'asc' | 'desc';
export type CursorKey = string | number;

export interface CursorPosition {
  /** E.g. `conversations:archive`; a cursor is refused elsewhere. */
  list: string;
  order: SortOrder;
  /** Sort key of the last item returned (e.g. `[updatedAt, id]`). */
  after: CursorKey[];
}

export interface PageParams {
  limit: number;
  order: SortOrder;
  /** Absent on the first page. */
  after?: CursorKey[];
}

export interface CursorPage<T> {
  items: T[];
  hasMore: boolean;
  cursor?: string;
}

export interface PageQuery {
  limit?: number;
  cursor?: string;
  order?: SortOrder;
}

export interface PageRules {
  /** So a cursor of another list (or mode) is refused. */
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

/** Anything that is not a value we produced is a 400 `invalid_cursor`. */
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

/** A cursor of another list, or reused with another order, is a 400 `invalid_cursor`. */
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

/** Fetch `limit + 1` rows: the extra one only proves there is more. */
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
