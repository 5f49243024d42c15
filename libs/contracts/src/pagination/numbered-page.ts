// Document 3, "Pagination envelope": numbered pages, not cursors.

export const ADMIN_PAGE = { defaultLimit: 25, maxLimit: 100 } as const;

export interface NumberedPageQuery {
  limit?: number;
  page?: number;
}

export interface NumberedPageParams {
  limit: number;
  page: number;
  offset: number;
}

/** `hasMore` is `page * limit < total`. */
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

/** `from`/`to` (UTC days, `to` inclusive) as a half-open range. */
export interface DayRange {
  since?: Date;
  /** The day after `to`. */
  until?: Date;
}

export function dayRange(from?: string, to?: string): DayRange {
  const range: DayRange = {};
  if (from !== undefined) range.since = new Date(`${from}T00:00:00.000Z`);
  if (to !== undefined) range.until = new Date(new Date(`${to}T00:00:00.000Z`).getTime() + 86_400_000);
  return range;
}
