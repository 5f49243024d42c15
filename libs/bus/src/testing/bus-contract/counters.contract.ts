import { randomUUID } from 'node:crypto';
import { type Bus } from '../../create-bus';
import { sleep } from '../async-helpers';
import { closeAll, CONTRACT_SETTINGS, type MakeBus } from './fixture';

export function describeCountersContract(makeBus: MakeBus): void {
  describe('Counters', () => {
    let bus: Bus;

    beforeEach(async () => {
      bus = await makeBus(CONTRACT_SETTINGS);
    });

    afterEach(() => closeAll([], [bus]));

    const key = () => `attempts:${randomUUID()}`;

    it('counts hits in a window that starts at the first hit', async () => {
      const k = key();
      expect(await bus.counters.hit(k, 60)).toEqual({ count: 1, resetInSeconds: 60 });
      expect((await bus.counters.hit(k, 60)).count).toBe(2);
      const state = await bus.counters.peek(k);
      expect(state.count).toBe(2);
      expect(state.resetInSeconds).toBeGreaterThan(58);
      expect(state.resetInSeconds).toBeLessThanOrEqual(60);
    });

    it('does not extend a window with later hits', async () => {
      const k = key();
      await bus.counters.hit(k, 60);
      expect((await bus.counters.hit(k, 3600)).resetInSeconds).toBeLessThanOrEqual(60);
    });

    it('starts again from zero when the window has passed', async () => {
      const k = key();
      await bus.counters.hit(k, 1);
      await bus.counters.hit(k, 1);
      await sleep(1100);
      expect(await bus.counters.peek(k)).toEqual({ count: 0, resetInSeconds: 0 });
      expect((await bus.counters.hit(k, 1)).count).toBe(1);
    });

    it('peeks at several keys in one call, in order', async () => {
      const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
      await bus.counters.hit(a, 60);
      await bus.counters.hit(c, 30);
      await bus.counters.hit(c, 30);
      expect(await bus.counters.peekMany([a, b, c])).toEqual([
        { count: 1, resetInSeconds: 60 },
        { count: 0, resetInSeconds: 0 },
        { count: 2, resetInSeconds: 30 },
      ]);
      expect(await bus.counters.peekMany([])).toEqual([]);
    });

    it('adds amounts within one window, which starts at the first addition', async () => {
      const k = key();
      expect(await bus.counters.add(k, 1500, 60)).toEqual({ count: 1500, resetInSeconds: 60 });
      expect((await bus.counters.add(k, 250, 60)).count).toBe(1750);
      expect((await bus.counters.hit(k, 60)).count).toBe(1751);
      await expect(bus.counters.add(k, 0, 60)).rejects.toThrow(RangeError);
      await expect(bus.counters.add(k, 1.5, 60)).rejects.toThrow(RangeError);
    });

    it('reads an unknown key as zero, and reset clears a key', async () => {
      const k = key();
      expect(await bus.counters.peek(k)).toEqual({ count: 0, resetInSeconds: 0 });
      await bus.counters.hit(k, 60);
      await bus.counters.reset(k);
      expect((await bus.counters.peek(k)).count).toBe(0);
    });

    it('counts concurrent hits exactly, and keeps keys apart', async () => {
      const [a, b] = [key(), key()];
      await Promise.all(Array.from({ length: 50 }, () => bus.counters.hit(a, 60)));
      await bus.counters.hit(b, 60);
      expect((await bus.counters.peek(a)).count).toBe(50);
      expect((await bus.counters.peek(b)).count).toBe(1);
    });

    it('refuses a window that is not a positive whole number of seconds', async () => {
      await expect(bus.counters.hit(key(), 0)).rejects.toThrow(RangeError);
      await expect(bus.counters.hit(key(), 1.5)).rejects.toThrow(RangeError);
      await expect(bus.counters.take(key(), 5, 0)).rejects.toThrow(RangeError);
      await expect(bus.counters.extend(key(), 0.5)).rejects.toThrow(RangeError);
    });

    it('takes up to the limit, then refuses without counting', async () => {
      const k = key();
      expect(await bus.counters.take(k, 2, 60)).toEqual({ taken: true, count: 1, resetInSeconds: 60 });
      expect(await bus.counters.take(k, 2, 60)).toMatchObject({ taken: true, count: 2 });
      const refused = await bus.counters.take(k, 2, 60);
      expect(refused).toMatchObject({ taken: false, count: 2 });
      expect(refused.resetInSeconds).toBeGreaterThan(58);
      expect((await bus.counters.peek(k)).count).toBe(2);
      expect(await bus.counters.take(k, 3, 60)).toMatchObject({ taken: true, count: 3 });
      await expect(bus.counters.take(k, 0, 60)).rejects.toThrow(RangeError);
    });

    it('takes within the window of the first count, never extending it, and afresh once it passed', async () => {
      const k = key();
      await bus.counters.hit(k, 1);
      expect((await bus.counters.take(k, 5, 3600)).resetInSeconds).toBeLessThanOrEqual(1);
      await sleep(1100);
      expect(await bus.counters.take(k, 5, 60)).toEqual({ taken: true, count: 1, resetInSeconds: 60 });
    });

    it('takes exactly the limit among hundreds of concurrent takes', async () => {
      const k = key();
      const results = await Promise.all(Array.from({ length: 300 }, () => bus.counters.take(k, 5, 60)));
      expect(results.filter((result) => result.taken)).toHaveLength(5);
      expect((await bus.counters.peek(k)).count).toBe(5);
    });

    it('gives back a taken unit on release, never going below zero, and forgets the key at zero', async () => {
      const k = key();
      await bus.counters.take(k, 2, 60);
      await bus.counters.take(k, 2, 60);
      await bus.counters.release(k);
      expect((await bus.counters.peek(k)).count).toBe(1);
      expect((await bus.counters.take(k, 2, 60)).taken).toBe(true);
      await bus.counters.release(k);
      await bus.counters.release(k);
      await bus.counters.release(k);
      expect(await bus.counters.peek(k)).toEqual({ count: 0, resetInSeconds: 0 });
      expect(await bus.counters.take(k, 2, 60)).toEqual({ taken: true, count: 1, resetInSeconds: 60 });
    });

    it('extends a window to end no sooner than asked, never shortening it, creating it with a count of 1', async () => {
      const k = key();
      expect(await bus.counters.extend(k, 2)).toEqual({ count: 1, resetInSeconds: 2 });
      expect(await bus.counters.extend(k, 30)).toEqual({ count: 1, resetInSeconds: 30 });
      expect((await bus.counters.extend(k, 4)).resetInSeconds).toBeGreaterThan(28);
      await bus.counters.hit(k, 60);
      expect(await bus.counters.peek(k)).toMatchObject({ count: 2 });
      expect((await bus.counters.peek(k)).resetInSeconds).toBeLessThanOrEqual(30);
    });

    it('ends an extended window when its time has passed', async () => {
      const k = key();
      await bus.counters.extend(k, 1);
      await sleep(1100);
      expect(await bus.counters.peek(k)).toEqual({ count: 0, resetInSeconds: 0 });
    });

    it('keeps the longest of concurrent extends', async () => {
      const k = key();
      await Promise.all([5, 60, 2, 30, 1].map((seconds) => bus.counters.extend(k, seconds)));
      expect((await bus.counters.peek(k)).resetInSeconds).toBeGreaterThan(58);
    });
  });
}
