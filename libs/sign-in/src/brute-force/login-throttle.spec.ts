import { MemoryCounters } from '@fed/bus';
import { type LoginAccount, type LoginSource, LoginThrottle } from './login-throttle';

const ALICE: LoginAccount = { userId: '6f1c2a0e-0d7e-4d5b-9c39-2f1f0a6c1e01' };
const HOME: LoginSource = { address: '198.51.100.1' };
const DEVICE: LoginSource = { deviceNonce: 'bm9uY2Ugb2YgYWxpY2U' };
const ATTACKER: LoginSource = { address: '203.0.113.7' };
const MOST_HELD_PER_WINDOW = 1 + 2 + 4 + 8 + 16 + 32 + 60 + 60;

describe('login throttle', () => {
  let now: number;
  let counters: MemoryCounters;
  let throttle: LoginThrottle;
  let checks: number;
  const later = (seconds: number) => (now += seconds * 1000);
  /** One attempt; the password is right when `right`. */
  const attempt = (account: LoginAccount, source: LoginSource, right = false) =>
    throttle.attempt(account, source, async () => {
      checks++;
      return right ? { id: 'user' } : null;
    });
  const fail = async (times: number, account: LoginAccount, source: LoginSource) => {
    for (let i = 0; i < times; i++) await attempt(account, source);
  };
  const refusedFor = async (account: LoginAccount, source: LoginSource) => {
    const result = await attempt(account, source, true);
    return result.refused ? result.retryAfterSeconds : 0;
  };

  beforeEach(() => {
    now = Date.parse('2026-11-22T10:00:00Z');
    counters = new MemoryCounters(() => now);
    throttle = new LoginThrottle(counters);
    checks = 0;
  });
  afterEach(() => counters.close());

  it('answers a right password with the user and a wrong one with null', async () => {
    expect(await attempt(ALICE, HOME, true)).toEqual({ refused: false, user: { id: 'user' } });
    expect(await attempt(ALICE, HOME)).toEqual({ refused: false, user: null });
  });

  it('locks one source out of an account after five failures, for the rest of the window, without checking the password', async () => {
    await fail(5, ALICE, ATTACKER);
    expect(checks).toBe(5);
    expect(await attempt(ALICE, ATTACKER, true)).toEqual({ refused: true, retryAfterSeconds: 900 });
    expect(checks).toBe(5);
    later(899);
    expect(await refusedFor(ALICE, ATTACKER)).toBe(1);
    later(1);
    expect(await refusedFor(ALICE, ATTACKER)).toBe(0);
  });

  it('reserves before the password is checked: of hundreds of concurrent attempts from one source, five are checked', async () => {
    const results = await Promise.all(Array.from({ length: 300 }, () => attempt(ALICE, ATTACKER)));
    expect(checks).toBe(5);
    expect(results.filter((result) => result.refused)).toHaveLength(295);
  });

  it('does not lock the real user out because one other source keeps failing', async () => {
    await fail(9, ALICE, ATTACKER);
    expect(await refusedFor(ALICE, HOME)).toBe(0);
    expect(await refusedFor({ userId: 'bob' }, ATTACKER)).toBe(0);
  });

  it("lets a source start afresh after a success, which clears that source's failures only", async () => {
    await fail(4, ALICE, HOME);
    expect(await refusedFor(ALICE, HOME)).toBe(0);
    await fail(4, ALICE, HOME);
    expect(await refusedFor(ALICE, HOME)).toBe(0);
  });

  it('gives the reservation back when the password check throws, so an outage locks no one out', async () => {
    const outage = () =>
      throttle.attempt(ALICE, HOME, async () => {
        throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
      });
    for (let i = 0; i < 20; i++) await expect(outage()).rejects.toThrow('ECONNREFUSED');
    await fail(4, ALICE, HOME);
    expect(await refusedFor(ALICE, HOME)).toBe(0);
  });

  it('counts an unknown login by its text, as it counts an account', async () => {
    await fail(5, { unknownLogin: 'nobody@example.com' }, ATTACKER);
    expect(await refusedFor({ unknownLogin: 'nobody@example.com' }, ATTACKER)).toBe(900);
    expect(await refusedFor({ unknownLogin: 'nobody@example.com' }, HOME)).toBe(0);
    expect(await refusedFor({ userId: 'nobody@example.com' }, ATTACKER)).toBe(0);
  });

  it('holds an account failing from many sources for 1, 2, 4 ... seconds, capped at 60, at most eight times a window', async () => {
    for (let i = 0; i < 9; i++) await attempt(ALICE, { address: `192.0.2.${i}` });
    expect(await refusedFor(ALICE, HOME)).toBe(0);
    const holds: number[] = [];
    for (let i = 9; i < 40; i++) {
      await attempt(ALICE, { address: `192.0.2.${i}` });
      const held = await refusedFor(ALICE, HOME);
      holds.push(held);
      later(held);
    }
    expect(holds.slice(0, 9)).toEqual([1, 2, 4, 8, 16, 32, 60, 60, 0]);
    expect(holds.slice(9).every((held) => held === 0)).toBe(true);
    // A new window: holds start again from one second, after ten failures.
    later(900);
    for (let i = 0; i < 9; i++) await attempt(ALICE, { address: `192.0.2.${100 + i}` });
    expect(await refusedFor(ALICE, HOME)).toBe(0);
    await attempt(ALICE, { address: '192.0.2.200' });
    expect(await refusedFor(ALICE, HOME)).toBe(1);
  });

  it('reports each failure by reason and each lock it arms: a locked source, and each hold of an account', async () => {
    const events: string[] = [];
    throttle = new LoginThrottle(counters, undefined, {
      failed: (reason) => events.push(reason),
      lockedOut: () => events.push('lockout'),
    });
    await fail(5, ALICE, ATTACKER);
    expect(events).toEqual([...Array(5).fill('invalid_credentials'), 'lockout']);
    await attempt(ALICE, ATTACKER, true);
    expect(events.at(-1)).toBe('throttled');
    events.length = 0;
    // Five more from other sources: the tenth failure of the account arms its first hold.
    for (let i = 0; i < 5; i++) await attempt(ALICE, { address: `192.0.2.${i}` });
    expect(events).toEqual([...Array(5).fill('invalid_credentials'), 'lockout']);
  });

  it('never holds a trusted device back, and counts its attempts by device, not by address', async () => {
    // An attacker behind the real user's address (same NAT) locks that address, not the device.
    await fail(5, ALICE, HOME);
    expect(await refusedFor(ALICE, HOME)).toBe(900);
    expect(await refusedFor(ALICE, DEVICE)).toBe(0);
    for (let i = 0; i < 5; i++) await attempt(ALICE, { address: `192.0.2.${i}` });
    expect(await refusedFor(ALICE, { address: '192.0.2.99' })).toBe(1);
    expect(await refusedFor(ALICE, DEVICE)).toBe(0);
  });

  it('locks a device nonce after five failures like an address, so a stolen cookie buys no more guesses', async () => {
    await fail(5, ALICE, DEVICE);
    expect(checks).toBe(5);
    expect(await refusedFor(ALICE, DEVICE)).toBe(900);
    expect(checks).toBe(5);
  });

  describe('an attacker failing on an account from many addresses at a steady low rate, for hours', () => {
    const HOURS = 4;
    /** Whether an attempt from `source` would reach the password check now; changes no counter. */
    const letThrough = async (source: LoginSource) => {
      const probe = throttle.attempt(ALICE, source, () => Promise.reject(new Error('probe')));
      return probe.then((result) => !result.refused).catch(() => true);
    };
    /** Runs the attack second by second; the callback probes each second. */
    const underAttack = async (probe: (second: number) => Promise<void>) => {
      for (let second = 0; second < HOURS * 3600; second++) {
        // One attempt every 15 seconds, each address used once per hour: never an address lock.
        if (second % 15 === 0) await attempt(ALICE, { address: `10.0.${(second / 15) % 240}.1` });
        await probe(second);
        later(1);
      }
    };

    it('never refuses the real user who carries a device cookie', async () => {
      const refusals: number[] = [];
      await underAttack(async (second) => {
        if (!(await letThrough(DEVICE))) refusals.push(second);
        // And every ten minutes the user signs in.
        if (second % 600 === 300 && (await attempt(ALICE, DEVICE, true)).refused) refusals.push(second);
      });
      expect(refusals).toEqual([]);
    });

    it('holds the real user without one for at most 1+2+4+8+16+32+60+60 seconds in any 15 minutes', async () => {
      const held: boolean[] = [];
      await underAttack(async () => void held.push(!(await letThrough(HOME))));
      const heldSeconds = held.filter(Boolean).length;
      expect(heldSeconds).toBeGreaterThan(HOURS * 4 * 100);
      let inWindow = held.slice(0, 900).filter(Boolean).length;
      let most = inWindow;
      for (let second = 900; second < held.length; second++) {
        inWindow += Number(held[second]) - Number(held[second - 900]);
        most = Math.max(most, inWindow);
      }
      expect(most).toBeLessThanOrEqual(MOST_HELD_PER_WINDOW);
    });
  });
});
