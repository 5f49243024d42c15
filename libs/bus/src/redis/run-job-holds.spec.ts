import { type JobHold } from '../ports';
import { RunJobHolds } from './run-job-holds';

// The clock is jest's (setTimeout and performance.now): each step of the stall time is exact.
describe('run job holds', () => {
  const STALL_MS = 10_000;
  let changes: [string, JobHold][];
  let holds: RunJobHolds;

  beforeEach(() => {
    jest.useFakeTimers();
    changes = [];
    holds = new RunJobHolds(STALL_MS, (jobId, hold) => void changes.push([jobId, hold]));
  });

  afterEach(() => jest.useRealTimers());

  it('holds a job for half the stall time from its start, then pauses it, then loses it at the full stall time', () => {
    const hold = holds.track('run-1');
    jest.advanceTimersByTime(STALL_MS / 2 - 1);
    expect(hold.current()).toBe('held');
    jest.advanceTimersByTime(1);
    expect(hold.current()).toBe('unconfirmed');
    jest.advanceTimersByTime(STALL_MS / 2 - 1);
    expect(hold.current()).toBe('unconfirmed');
    jest.advanceTimersByTime(1);
    expect(hold.current()).toBe('lost');
    expect(changes).toEqual([
      ['run-1', 'unconfirmed'],
      ['run-1', 'lost'],
    ]);
  });

  it('counts a renewal from when the batch before it was confirmed, not from when its own answer came', () => {
    const hold = holds.track('run-1');
    jest.advanceTimersByTime(2000);
    holds.renewed(['run-1']); // sent after the job started: counts from its start
    jest.advanceTimersByTime(2000);
    holds.renewed(['run-1']); // sent after the batch at 2 s
    // Held until 2 s + half the stall time.
    jest.advanceTimersByTime(2999);
    expect(hold.current()).toBe('held');
    jest.advanceTimersByTime(1);
    expect(hold.current()).toBe('unconfirmed');
  });

  it('counts an answer read long after it came for little: the renewal may have reached Redis much earlier', () => {
    const hold = holds.track('run-1');
    holds.renewed(['run-1']);
    // The process paused for 7 s, with the answer of the next renewal waiting in its socket.
    jest.advanceTimersByTime(7000);
    holds.renewed(['run-1']);
    expect(hold.current()).toBe('unconfirmed');
    // The next renewal was sent after that answer was read: it counts from then.
    jest.advanceTimersByTime(500);
    holds.renewed(['run-1']);
    expect(hold.current()).toBe('held');
  });

  it('lets a waiting write go on once the hold is confirmed again', async () => {
    const hold = holds.track('run-1');
    jest.advanceTimersByTime(STALL_MS / 2);
    let answer: boolean | undefined;
    const asked = hold.confirmed().then((held) => (answer = held));
    await Promise.resolve();
    expect(answer).toBeUndefined();
    // The renewal answered now may have been sent right after the job started: it proves nothing new.
    holds.renewed(['run-1']);
    await Promise.resolve();
    expect(answer).toBeUndefined();
    // The next one was sent after it.
    jest.advanceTimersByTime(500);
    holds.renewed(['run-1']);
    await asked;
    expect(answer).toBe(true);
    expect(changes).toEqual([
      ['run-1', 'unconfirmed'],
      ['run-1', 'held'],
    ]);
  });

  it('refuses a waiting write once the hold is lost, and for good', async () => {
    const hold = holds.track('run-1');
    jest.advanceTimersByTime(STALL_MS / 2);
    const asked = hold.confirmed();
    jest.advanceTimersByTime(STALL_MS / 2);
    expect(await asked).toBe(false);
    holds.renewed(['run-1']);
    expect(hold.current()).toBe('lost');
    expect(await hold.confirmed()).toBe(false);
  });

  it('loses a job at once when Redis refused to renew its lock, and only that job', async () => {
    const refused = holds.track('run-1');
    const other = holds.track('run-2');
    holds.refused(['run-1']);
    expect(refused.current()).toBe('lost');
    expect(await refused.confirmed()).toBe(false);
    expect(other.current()).toBe('held');
    expect(changes).toEqual([['run-1', 'lost']]);
  });

  it('reports nothing more for a released job', () => {
    const hold = holds.track('run-1');
    hold.release();
    jest.advanceTimersByTime(STALL_MS * 2);
    expect(changes).toEqual([]);
  });
});
