import { MemoryCounters } from '@fed/bus';
import { AttemptThrottle, type ThrottlePolicy } from './attempt-throttle';

const policy: ThrottlePolicy = {
  windowSeconds: 900,
  lockAfterPerSource: 5,
  slowAfterPerAccount: 10,
  maxHoldSeconds: 60,
};

describe('brute-force throttle', () => {
  let now: number;
  let counters: MemoryCounters;
  let throttle: AttemptThrottle;
  const later = (seconds: number) => (now += seconds * 1000);
  const fail = async (times: number, account: string, source: string) => {
    for (let i = 0; i < times; i++) await throttle.failed(account, source);
  };

  beforeEach(() => {
    now = Date.parse('2026-11-22T10:00:00Z');
    counters = new MemoryCounters(() => now);
    throttle = new AttemptThrottle(counters, 'login', policy);
  });
  afterEach(() => counters.close());

  it('locks one source out of an account after repeated failures, for the rest of the window', async () => {
    await fail(4, 'alice', '203.0.113.7');
    expect(await throttle.check('alice', '203.0.113.7')).toEqual({ allowed: true });
    await fail(1, 'alice', '203.0.113.7');
    expect(await throttle.check('alice', '203.0.113.7')).toEqual({ allowed: false, retryAfterSeconds: 900 });
    later(899);
    expect((await throttle.check('alice', '203.0.113.7')).allowed).toBe(false);
    later(1);
    expect(await throttle.check('alice', '203.0.113.7')).toEqual({ allowed: true });
  });

  it('on a hot path, remembers a clean pair briefly, and forgets it at the first failure seen here', async () => {
    const hot = new AttemptThrottle(counters, 'client', policy, { rememberCleanMs: 1000 });
    const peeks = jest.spyOn(counters, 'peekMany');
    expect(await hot.check('etl', '203.0.113.7')).toEqual({ allowed: true });
    expect(await hot.check('etl', '203.0.113.7')).toEqual({ allowed: true });
    expect(peeks).toHaveBeenCalledTimes(1);
    for (let i = 0; i < 5; i++) await hot.failed('etl', '203.0.113.7');
    expect((await hot.check('etl', '203.0.113.7')).allowed).toBe(false);
    // Failures recorded by another instance reach this one once the remembered answer expires.
    const other = new AttemptThrottle(counters, 'client', policy, { rememberCleanMs: 1000 });
    expect((await hot.check('svc', '198.51.100.1')).allowed).toBe(true);
    for (let i = 0; i < 5; i++) await other.failed('svc', '198.51.100.1');
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await hot.check('svc', '198.51.100.1')).allowed).toBe(false);
  });

  it('does not lock the real user out because one other source keeps failing', async () => {
    await fail(9, 'alice', '203.0.113.7');
    expect(await throttle.check('alice', '198.51.100.1')).toEqual({ allowed: true });
    expect(await throttle.check('bob', '203.0.113.7')).toEqual({ allowed: true });
  });

  it('slows an account attacked from many sources, with holds that grow and stay capped', async () => {
    for (let i = 0; i < 10; i++) await throttle.failed('alice', `198.51.100.${i}`);
    expect(await throttle.check('alice', '192.0.2.1')).toEqual({ allowed: false, retryAfterSeconds: 1 });
    later(1);
    expect(await throttle.check('alice', '192.0.2.1')).toEqual({ allowed: true });
    const holds: number[] = [];
    for (let i = 10; i < 40; i++) {
      await throttle.failed('alice', `198.51.100.${i}`);
      const decision = await throttle.check('alice', '192.0.2.1');
      holds.push(decision.allowed ? 0 : decision.retryAfterSeconds);
      later(1);
    }
    expect(Math.max(...holds)).toBe(60);
    expect(holds.every((hold) => hold <= 60)).toBe(true);
    expect(holds.slice(0, 5)).toEqual([2, 4, 8, 16, 32]);
    later(60);
    expect(await throttle.check('alice', '192.0.2.1')).toEqual({ allowed: true });
  });

  it('lets a source start afresh after a success', async () => {
    await fail(4, 'alice', '203.0.113.7');
    await throttle.succeeded('alice', '203.0.113.7');
    await fail(4, 'alice', '203.0.113.7');
    expect(await throttle.check('alice', '203.0.113.7')).toEqual({ allowed: true });
  });

  it('keeps login and client counters apart, and accepts any account or source text', async () => {
    const clients = new AttemptThrottle(counters, 'client', policy);
    await fail(5, 'etl', '203.0.113.7');
    expect(await clients.check('etl', '203.0.113.7')).toEqual({ allowed: true });
    const odd = 'x'.repeat(5000) + '\u0000:throttle';
    await fail(5, odd, '::1');
    expect((await throttle.check(odd, '::1')).allowed).toBe(false);
  });
});
