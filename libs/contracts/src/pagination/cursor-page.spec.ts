import { ApiError } from '../errors';
import { decodeCursor, encodeCursor, toCursorPage, toPageParams } from './cursor-page';

const list = 'conversations:active';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return error instanceof ApiError ? `${error.status} ${error.code}` : 'not an ApiError';
  }
  return undefined;
}

describe('cursor pagination', () => {
  // The shape of limit, order and cursor is the request DTO's (libs/server/src/validation/page-query.dto.ts).
  it('defaults limit to 50 and order to desc', () => {
    expect(toPageParams({}, { list })).toEqual({ limit: 50, order: 'desc' });
    expect(toPageParams({ limit: 7, order: 'asc' }, { list })).toEqual({ limit: 7, order: 'asc' });
  });

  it('uses the admin default of 25 when the list says so', () => {
    expect(toPageParams({}, { list: 'admin:users', defaultLimit: 25 }).limit).toBe(25);
  });

  it('round-trips a cursor it produced', () => {
    const cursor = encodeCursor({ list, order: 'asc', after: ['2026-11-22T00:00:00.000Z', 'id-1'] });
    expect(toPageParams({ cursor, order: 'asc' }, { list })).toEqual({
      limit: 50,
      order: 'asc',
      after: ['2026-11-22T00:00:00.000Z', 'id-1'],
    });
  });

  it('refuses a cursor that is not a value from a previous response', () => {
    const forged = Buffer.from(JSON.stringify({ v: 2, l: list, o: 'desc', a: [1] })).toString('base64url');
    for (const cursor of ['', 'not base64!', 'abc', forged, 'x'.repeat(2000)]) {
      expect(codeOf(() => toPageParams({ cursor }, { list }))).toBe('400 invalid_cursor');
    }
  });

  it('refuses a cursor of another list, so cursors cannot cross modes', () => {
    const archived = encodeCursor({ list: 'conversations:archive', order: 'desc', after: ['a'] });
    expect(codeOf(() => decodeCursor(archived, list))).toBe('400 invalid_cursor');
  });

  it('refuses a cursor reused with a different order', () => {
    const cursor = encodeCursor({ list, order: 'desc', after: ['a'] });
    expect(codeOf(() => toPageParams({ cursor, order: 'asc' }, { list }))).toBe('400 invalid_cursor');
  });

  it('sets hasMore and a cursor only when a row beyond the limit was fetched', () => {
    const params = { limit: 2, order: 'desc' as const };
    const more = toCursorPage([{ id: 'a' }, { id: 'b' }, { id: 'c' }], params, list, (r) => [r.id]);
    expect(more.items.map((r) => r.id)).toEqual(['a', 'b']);
    expect(more.hasMore).toBe(true);
    expect(decodeCursor(more.cursor as string, list).after).toEqual(['b']);

    const last = toCursorPage([{ id: 'a' }, { id: 'b' }], params, list, (r) => [r.id]);
    expect(last).toEqual({ items: [{ id: 'a' }, { id: 'b' }], hasMore: false });
    expect('cursor' in last).toBe(false);
  });
});
