import { timeOrderedUuid } from './time-ordered-uuid';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('timeOrderedUuid', () => {
  it('is a version 7 UUID whose first 48 bits are the time in milliseconds', () => {
    const now = Date.UTC(2026, 10, 24, 12, 0, 0, 123);
    const id = timeOrderedUuid(now);
    expect(id).toMatch(UUID_V7);
    expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(now);
  });

  it('sorts by time and does not repeat, across refills of its random bytes', () => {
    const ids = Array.from({ length: 5000 }, (_, i) => timeOrderedUuid(1_700_000_000_000 + i));
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    for (const id of ids) expect(id).toMatch(UUID_V7);
    const sameMillisecond = Array.from({ length: 2000 }, () => timeOrderedUuid(1_700_000_000_000));
    expect(new Set(sameMillisecond).size).toBe(sameMillisecond.length);
  });
});
