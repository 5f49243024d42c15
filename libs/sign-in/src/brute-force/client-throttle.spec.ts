import { MemoryCounters } from '@fed/bus';
import { ClientThrottle, type ClientThrottlePolicy } from './client-throttle';
import { LoginThrottle } from './login-throttle';

const policy: ClientThrottlePolicy = { windowSeconds: 900, lockAfterPerSource: 5 };
const CLIENT_ADDRESS = '198.51.100.1';
const ATTACKER = '203.0.113.7';

describe('client secret throttle', () => {
  let now: number;
  let counters: MemoryCounters;
  let throttle: ClientThrottle;
  const later = (seconds: number) => (now += seconds * 1000);
  const wrong = async (times: number, clientId: string, source: string) => {
    for (let i = 0; i < times; i++) expect(await throttle.accepts(clientId, source, false)).toBe(false);
  };

  beforeEach(() => {
    now = Date.parse('2026-11-22T10:00:00Z');
    counters = new MemoryCounters(() => now);
    throttle = new ClientThrottle(counters, policy);
  });
  afterEach(() => counters.close());

  it('locks one client id and address pair after five wrong secrets, for the rest of the window, even for the right secret', async () => {
    await wrong(4, 'etl', ATTACKER);
    await wrong(1, 'etl', ATTACKER);
    expect(await throttle.accepts('etl', ATTACKER, true)).toBe(false);
    later(899);
    expect(await throttle.accepts('etl', ATTACKER, true)).toBe(false);
    later(1);
    expect(await throttle.accepts('etl', ATTACKER, true)).toBe(true);
  });

  it.each([
    ['one address', () => ATTACKER],
    ['a new address each time', (request: number) => `2001:db8::${request.toString(16)}`],
  ])(
    'never locks the client itself: wrong secrets twice a minute for hours from %s leave the client its tokens',
    async (_from, attackerAddress) => {
      for (let minute = 0; minute < 6 * 60; minute++) {
        await wrong(1, 'etl', attackerAddress(2 * minute));
        await wrong(1, 'etl', attackerAddress(2 * minute + 1));
        later(20);
        expect(await throttle.accepts('etl', CLIENT_ADDRESS, true)).toBe(true);
        later(40);
      }
    },
  );

  it('does not lock a correctly configured client after a smoke test: three wrong secrets, a success, two wrong', async () => {
    await wrong(3, 'etl', CLIENT_ADDRESS);
    expect(await throttle.accepts('etl', CLIENT_ADDRESS, true)).toBe(true);
    await wrong(2, 'etl', CLIENT_ADDRESS);
    expect(await throttle.accepts('etl', CLIENT_ADDRESS, true)).toBe(true);
    // And the success cleared them again: four more are still not a lock.
    await wrong(4, 'etl', CLIENT_ADDRESS);
    expect(await throttle.accepts('etl', CLIENT_ADDRESS, true)).toBe(true);
  });

  it('counts every one of hundreds of concurrent wrong secrets, then refuses the right one from that address only', async () => {
    const answers = await Promise.all(Array.from({ length: 300 }, () => throttle.accepts('etl', ATTACKER, false)));
    expect(answers.every((accepted) => !accepted)).toBe(true);
    const hits = jest.spyOn(counters, 'hit');
    await wrong(1, 'etl', ATTACKER);
    expect(await hits.mock.results[0]?.value).toMatchObject({ count: 301 });
    expect(await throttle.accepts('etl', ATTACKER, true)).toBe(false);
    expect(await throttle.accepts('etl', CLIENT_ADDRESS, true)).toBe(true);
  });

  it('never counts concurrent right secrets as attempts', async () => {
    const answers = await Promise.all(Array.from({ length: 100 }, () => throttle.accepts('etl', CLIENT_ADDRESS, true)));
    expect(answers.every(Boolean)).toBe(true);
    await wrong(4, 'etl', CLIENT_ADDRESS);
    expect(await throttle.accepts('etl', CLIENT_ADDRESS, true)).toBe(true);
  });

  it('asks the counters once for a right secret from a clean pair, and resets only a pair that had failures', async () => {
    const calls = ['hit', 'peek', 'peekMany', 'reset', 'take', 'extend'].map((name) =>
      jest.spyOn(counters, name as 'hit'),
    );
    const total = () => calls.reduce((sum, spy) => sum + spy.mock.calls.length, 0);
    expect(await throttle.accepts('etl', CLIENT_ADDRESS, true)).toBe(true);
    expect(total()).toBe(1);
    await wrong(1, 'etl', CLIENT_ADDRESS);
    const reset = jest.spyOn(counters, 'reset');
    expect(await throttle.accepts('etl', CLIENT_ADDRESS, true)).toBe(true);
    expect(reset).toHaveBeenCalledTimes(1);
  });

  it('on the hot path, remembers a clean pair for right secrets only, and forgets it at the first failure seen here', async () => {
    const hot = new ClientThrottle(counters, policy, { rememberCleanMs: 1000, now: () => now });
    const peeks = jest.spyOn(counters, 'peek');
    expect(await hot.accepts('etl', CLIENT_ADDRESS, true)).toBe(true);
    expect(await hot.accepts('etl', CLIENT_ADDRESS, true)).toBe(true);
    expect(peeks).toHaveBeenCalledTimes(1);
    // A wrong secret is always counted, remembered pair or not.
    for (let i = 0; i < 5; i++) expect(await hot.accepts('etl', CLIENT_ADDRESS, false)).toBe(false);
    expect(await hot.accepts('etl', CLIENT_ADDRESS, true)).toBe(false);
    // Failures counted by another instance apply here once the remembered answer expires.
    const other = new ClientThrottle(counters, policy, { rememberCleanMs: 1000, now: () => now });
    expect(await hot.accepts('svc', CLIENT_ADDRESS, true)).toBe(true);
    for (let i = 0; i < 5; i++) await other.accepts('svc', CLIENT_ADDRESS, false);
    expect(await hot.accepts('svc', CLIENT_ADDRESS, true)).toBe(true);
    later(1);
    expect(await hot.accepts('svc', CLIENT_ADDRESS, true)).toBe(false);
  });

  it('keeps client and login counters apart, and accepts any client id or address text', async () => {
    const logins = new LoginThrottle(counters);
    for (let i = 0; i < 5; i++) {
      await logins.attempt({ unknownLogin: 'etl' }, { address: ATTACKER }, async () => null);
    }
    expect(await throttle.accepts('etl', ATTACKER, true)).toBe(true);
    const odd = 'x'.repeat(5000) + '\u0000:throttle';
    await wrong(5, odd, '::1');
    expect(await throttle.accepts(odd, '::1', true)).toBe(false);
    expect(await throttle.accepts('x'.repeat(5000), '\u0000:throttle\u0000::1', true)).toBe(true);
  });
});
