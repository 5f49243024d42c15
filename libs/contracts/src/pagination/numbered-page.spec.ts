import { dayRange, numberedPageEnvelope, toNumberedPageParams } from './numbered-page';

describe('the admin pagination envelope', () => {
  it('defaults to 25 rows of page 1', () => {
    expect(toNumberedPageParams({})).toEqual({ limit: 25, page: 1, offset: 0 });
    expect(toNumberedPageParams({ limit: 10, page: 3 })).toEqual({ limit: 10, page: 3, offset: 20 });
  });

  it('says hasMore exactly when page * limit < total', () => {
    const params = toNumberedPageParams({ limit: 10, page: 2 });
    expect(numberedPageEnvelope(params, 21)).toEqual({ total: 21, limit: 10, page: 2, hasMore: true });
    expect(numberedPageEnvelope(params, 20).hasMore).toBe(false);
    expect(numberedPageEnvelope(params, 0).hasMore).toBe(false);
  });
});

describe('a log list day range', () => {
  it('starts at the first instant of `from` and ends after the whole day `to`, in UTC', () => {
    expect(dayRange('2026-11-01', '2026-11-30')).toEqual({
      since: new Date('2026-11-01T00:00:00.000Z'),
      until: new Date('2026-12-01T00:00:00.000Z'),
    });
    expect(dayRange()).toEqual({});
  });
});
