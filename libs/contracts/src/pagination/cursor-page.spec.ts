import { ApiError } from '../errors';
import { decodeCursor, encodeCursor, parsePageQuery, toCursorPage } from './cursor-page';

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
  it('defaults limit to 50 and order to desc', () => {
    expect(parsePageQuery({}, { list })).toEqual({ limit: 50, order: 'desc' });
  });

  it('accepts limit 1 and 100 and refuses 0, 101, fractions and words with 400', () => {
    expect(parsePageQuery({ limit: '1' }, { list }).limit).toBe(1);
    expect(parsePageQuery({ limit: '100' }, { list }).limit).toBe(100);
    for (const limit of ['0', '101', '1.5', 'ten', '', '-1', ['5']]) {
      expect(codeOf(() => parsePageQuery({ limit }, { list }))).toBe('400 invalid_parameter');
    }
  });

  it('uses the admin default of 25 when the list says so', () => {
    expect(parsePageQuery({}, { list: 'admin:users', defaultLimit: 25 }).limit).toBe(25);
  });

  it('refuses an order other than asc or desc, and order on lists without it', () => {
    expect(codeOf(() => parsePageQuery({ order: 'up' }, { list }))).toBe('400 invalid_parameter');
    expect(codeOf(() => parsePageQuery({ order: 'asc' }, { list, orderable: false }))).toBe('400 invalid_parameter');
  });

  it('round-trips a cursor it produced', () => {
    const cursor = encodeCursor({ list, order: 'asc', after: ['2026-11-22T00:00:00.000Z', 'id-1'] });
    expect(parsePageQuery({ cursor, order: 'asc' }, { list })).toEqual({
      limit: 50,
      order: 'asc',
      after: ['2026-11-22T00:00:00.000Z', 'id-1'],
    });
  });

  it('refuses a cursor that is not a value from a previous response', () => {
    const forged = Buffer.from(JSON.stringify({ v: 2, l: list, o: 'desc', a: [1] })).toString('base64url');
    for (const cursor of ['', 'not base64!', 'abc', forged, 'x'.repeat(2000), 42]) {
      expect(codeOf(() => parsePageQuery({ cursor }, { list }))).toBe('400 invalid_cursor');
    }
  });

  it('refuses a cursor of another list, so cursors cannot cross modes', () => {
    const archived = encodeCursor({ list: 'conversations:archive', order: 'desc', after: ['a'] });
    expect(codeOf(() => decodeCursor(archived, list))).toBe('400 invalid_cursor');
  });

  it('refuses a cursor reused with a different order', () => {
    const cursor = encodeCursor({ list, order: 'desc', after: ['a'] });
    expect(codeOf(() => parsePageQuery({ cursor, order: 'asc' }, { list }))).toBe('400 invalid_cursor');
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
