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

export interface PageQuery {
  limit?: unknown;
  cursor?: unknown;
  order?: unknown;
}

export interface PageRules {
  /** Identifies the list, so a cursor of another list (or mode) is refused. */
  list: string;
  defaultLimit?: number;
  maxLimit?: number;
  defaultOrder?: SortOrder;
  /** False for endpoints that do not support `order`: the parameter is then refused. */
  orderable?: boolean;
}

const CURSOR_VERSION = 1;
const MAX_CURSOR_LENGTH = 1024;
const MAX_KEY_PARTS = 4;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const INTEGER = /^[0-9]{1,4}$/;

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

/** Validates `limit` (integer 1-100 by default), `order` and `cursor` of a list request. */
export function parsePageQuery(query: PageQuery, rules: PageRules): PageParams {
  const maxLimit = rules.maxLimit ?? 100;
  const defaultOrder = rules.defaultOrder ?? 'desc';
  let limit = rules.defaultLimit ?? 50;
  if (query.limit !== undefined) {
    const raw = query.limit;
    const text = typeof raw === 'number' ? String(raw) : raw;
    if (typeof text !== 'string' || !INTEGER.test(text) || Number(text) < 1 || Number(text) > maxLimit) {
      throw new ApiError('invalid_parameter', `limit must be an integer from 1 to ${maxLimit}`);
    }
    limit = Number(text);
  }
  let order: SortOrder = defaultOrder;
  if (query.order !== undefined) {
    if (rules.orderable === false) throw new ApiError('invalid_parameter', 'order is not supported by this list');
    if (query.order !== 'asc' && query.order !== 'desc') {
      throw new ApiError('invalid_parameter', 'order must be asc or desc');
    }
    order = query.order;
  }
  if (query.cursor === undefined) return { limit, order };
  if (typeof query.cursor !== 'string') {
    throw new ApiError('invalid_cursor', 'cursor must be a value returned by a previous response of this list');
  }
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
