// The pagination envelope of the admin lists (document 3, "Pagination envelope"): numbered pages, not cursors.

export const ADMIN_PAGE = { defaultLimit: 25, maxLimit: 100 } as const;

export interface NumberedPageQuery {
  limit?: number;
  page?: number;
}

/** What a repository needs: how many rows to skip and take. */
export interface NumberedPageParams {
  limit: number;
  page: number;
  offset: number;
}

/** `total`, `limit`, `page`, `hasMore` (`page * limit < total`), beside the list's own array. */
export interface NumberedPageEnvelope {
  total: number;
  limit: number;
  page: number;
  hasMore: boolean;
}

export function toNumberedPageParams(query: NumberedPageQuery): NumberedPageParams {
  const limit = query.limit ?? ADMIN_PAGE.defaultLimit;
  const page = query.page ?? 1;
  return { limit, page, offset: (page - 1) * limit };
}

export function numberedPageEnvelope(params: NumberedPageParams, total: number): NumberedPageEnvelope {
  return { total, limit: params.limit, page: params.page, hasMore: params.page * params.limit < total };
}

/** A log list's `from`/`to` (UTC days, `to` inclusive) as a half-open range of instants. */
export interface DayRange {
  /** Inclusive; undefined: no lower bound. */
  since?: Date;
  /** Exclusive (the day after `to`); undefined: no upper bound. */
  until?: Date;
}

export function dayRange(from?: string, to?: string): DayRange {
  const range: DayRange = {};
  if (from !== undefined) range.since = new Date(`${from}T00:00:00.000Z`);
  if (to !== undefined) range.until = new Date(new Date(`${to}T00:00:00.000Z`).getTime() + 86_400_000);
  return range;
}
