import { randomUUID } from 'node:crypto';
import { type Bus } from '../../create-bus';
import { STREAM_START, StreamEndedError, StreamLostError } from '../../ports';
import { eventually, offsetKey, resolvesWithin, sleep } from '../async-helpers';
import { closeAll, CONTRACT_SETTINGS, type MakeBus } from './fixture';

export function describeRunStreamContract(makeBus: MakeBus): void {
  describe('RunStream', () => {
    let bus: Bus;
    const extraBuses: Bus[] = [];

    beforeEach(async () => {
      bus = await makeBus(CONTRACT_SETTINGS);
    });

    afterEach(() => closeAll([], [bus, ...extraBuses.splice(0)]));

    const streamId = () => `run-${randomUUID()}`;

    it('returns increasing offsets from append', async () => {
      const id = streamId();
      const offsets: string[] = [];
      for (let i = 0; i < 20; i++) offsets.push(await bus.runStream.append(id, `chunk ${i}`));
      for (let i = 1; i < offsets.length; i++) {
        expect(offsetKey(offsets[i]) > offsetKey(offsets[i - 1])).toBe(true);
      }
    });

    it('reads every entry in append order from STREAM_START', async () => {
      const id = streamId();
      const appended = [];
      for (const data of ['a', 'b', 'c']) appended.push({ offset: await bus.runStream.append(id, data), data });
      expect(await bus.runStream.read(id, STREAM_START)).toEqual({ entries: appended, ended: false });
    });

    it('returns only the entries appended after the given offset', async () => {
      const id = streamId();
      const first = await bus.runStream.append(id, 'a');
      const second = await bus.runStream.append(id, 'b');
      const third = await bus.runStream.append(id, 'c');
      const read = await bus.runStream.read(id, first);
      expect(read.entries).toEqual([
        { offset: second, data: 'b' },
        { offset: third, data: 'c' },
      ]);
      expect((await bus.runStream.read(id, third)).entries).toEqual([]);
    });

    it('keeps data exactly as appended, including unicode and empty strings', async () => {
      const id = streamId();
      const values = ['', '{"delta":"héllo 👋"}', 'line1\nline2', ' '.repeat(3)];
      for (const value of values) await bus.runStream.append(id, value);
      expect((await bus.runStream.read(id, STREAM_START)).entries.map((e) => e.data)).toEqual(values);
    });

    it("keeps the trace context the stream's first entry was appended with, beside its data, and only there", async () => {
      const id = streamId();
      const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
      const first = await bus.runStream.append(id, 'a', { traceparent, tracestate: 'vendor=x' });
      const second = await bus.runStream.append(id, 'b', { traceparent: `${traceparent.slice(0, -2)}00` });
      const third = await bus.runStream.append(id, 'c');
      const { entries } = await bus.runStream.read(id, STREAM_START);
      expect(entries).toEqual([
        { offset: first, data: 'a', trace: { traceparent, tracestate: 'vendor=x' } },
        { offset: second, data: 'b' },
        { offset: third, data: 'c' },
      ]);
      // A reader that starts after the first entry asks for it once.
      expect((await bus.runStream.read(id, first)).entries[0]).not.toHaveProperty('trace');
      expect(await bus.runStream.traceOf(id)).toEqual({ traceparent, tracestate: 'vendor=x' });
    });

    it('has no trace context for a stream whose first entry had none, nor for an unknown or ended-empty one', async () => {
      const untraced = streamId();
      await bus.runStream.append(untraced, 'a');
      await bus.runStream.append(untraced, 'b', {
        traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      });
      expect(await bus.runStream.traceOf(untraced)).toBeUndefined();
      expect((await bus.runStream.read(untraced, STREAM_START)).entries.map((entry) => 'trace' in entry)).toEqual([
        false,
        false,
      ]);
      expect(await bus.runStream.traceOf(streamId())).toBeUndefined();
      const endedEmpty = streamId();
      await bus.runStream.end(endedEmpty);
      expect(await bus.runStream.traceOf(endedEmpty)).toBeUndefined();
    });

    it('returns at most `count` entries per read, and 100 by default', async () => {
      const id = streamId();
      for (let i = 0; i < 105; i++) await bus.runStream.append(id, `${i}`);
      const page = await bus.runStream.read(id, STREAM_START, { count: 2 });
      expect(page.entries.map((e) => e.data)).toEqual(['0', '1']);
      const next = await bus.runStream.read(id, page.entries[1].offset, { count: 2 });
      expect(next.entries.map((e) => e.data)).toEqual(['2', '3']);
      expect((await bus.runStream.read(id, STREAM_START)).entries).toHaveLength(100);
    });

    it('lands every one of many concurrent appends, in offset order', async () => {
      const id = streamId();
      const offsets = await Promise.all(Array.from({ length: 50 }, (_, i) => bus.runStream.append(id, `${i}`)));
      const read = await bus.runStream.read(id, STREAM_START);
      expect(read.entries.map((e) => e.offset)).toEqual(
        [...offsets].sort((a, b) => (offsetKey(a) < offsetKey(b) ? -1 : 1)),
      );
      expect(new Set(read.entries.map((e) => e.data)).size).toBe(50);
    });

    it('returns entries already there at once, even when asked to block', async () => {
      const id = streamId();
      await bus.runStream.append(id, 'ready');
      const started = Date.now();
      const read = await bus.runStream.read(id, STREAM_START, { blockMs: 5000 });
      expect(read.entries.map((e) => e.data)).toEqual(['ready']);
      expect(Date.now() - started).toBeLessThan(1000);
    });

    it('wakes a blocking read as soon as an entry is appended', async () => {
      const id = streamId();
      const before = await bus.runStream.append(id, 'old');
      const reading = bus.runStream.read(id, before, { blockMs: 5000 });
      await sleep(50);
      const appendedAt = Date.now();
      const offset = await bus.runStream.append(id, 'new');
      const read = await reading;
      expect(Date.now() - appendedAt).toBeLessThan(500);
      expect(read).toEqual({ entries: [{ offset, data: 'new' }], ended: false });
    });

    it('wakes a blocking read on a stream that did not exist yet', async () => {
      const id = streamId();
      const reading = bus.runStream.read(id, STREAM_START, { blockMs: 5000 });
      await sleep(50);
      await bus.runStream.append(id, 'first');
      const read = await resolvesWithin('the blocking read', reading, 1000);
      expect(read.entries.map((e) => e.data)).toEqual(['first']);
    });

    it('returns no entries from a blocking read once blockMs passed without an append', async () => {
      const id = streamId();
      const last = await bus.runStream.append(id, 'old');
      const started = Date.now();
      const read = await bus.runStream.read(id, last, { blockMs: 200 });
      const elapsed = Date.now() - started;
      expect(read).toEqual({ entries: [], ended: false });
      expect(elapsed).toBeGreaterThanOrEqual(190);
      expect(elapsed).toBeLessThan(1500);
    });

    it('returns at once when blockMs is 0 and nothing is there', async () => {
      const started = Date.now();
      expect(await bus.runStream.read(streamId(), STREAM_START)).toEqual({ entries: [], ended: false, absent: true });
      expect(Date.now() - started).toBeLessThan(500);
    });

    it('ends a blocking read early when its signal aborts', async () => {
      const controller = new AbortController();
      const started = Date.now();
      setTimeout(() => controller.abort(), 50);
      const read = await bus.runStream.read(streamId(), STREAM_START, { blockMs: 5000, signal: controller.signal });
      expect(read).toMatchObject({ entries: [], ended: false });
      expect(Date.now() - started).toBeLessThan(1000);
    });

    it('does not wait at all when the signal is already aborted', async () => {
      const started = Date.now();
      const read = await bus.runStream.read(streamId(), STREAM_START, { blockMs: 5000, signal: AbortSignal.abort() });
      expect(read).toMatchObject({ entries: [], ended: false });
      expect(Date.now() - started).toBeLessThan(500);
    });

    it('wakes each of many blocking readers on different streams with its own entry', async () => {
      const ids = Array.from({ length: 200 }, () => streamId());
      const reads = ids.map((id) => bus.runStream.read(id, STREAM_START, { blockMs: 10_000 }));
      await sleep(100);
      const started = Date.now();
      await Promise.all(ids.map((id, i) => bus.runStream.append(id, `data-${i}`)));
      const results = await resolvesWithin('all blocking reads', Promise.all(reads), 5000);
      expect(Date.now() - started).toBeLessThan(2000);
      expect(results.map((r) => r.entries.map((e) => e.data))).toEqual(ids.map((_, i) => [`data-${i}`]));
    });

    it('wakes every blocking reader of the same stream', async () => {
      const id = streamId();
      const reads = Array.from({ length: 5 }, () => bus.runStream.read(id, STREAM_START, { blockMs: 5000 }));
      await sleep(50);
      await bus.runStream.append(id, 'shared');
      const results = await resolvesWithin('all blocking reads', Promise.all(reads), 1000);
      expect(results.map((r) => r.entries.map((e) => e.data))).toEqual(Array(5).fill(['shared']));
    });

    it('reports ended only once every entry up to the end was returned, never the end as data', async () => {
      const id = streamId();
      const a = await bus.runStream.append(id, 'a');
      const b = await bus.runStream.append(id, 'b');
      await bus.runStream.end(id);
      expect(await bus.runStream.read(id, STREAM_START, { count: 1 })).toEqual({
        entries: [{ offset: a, data: 'a' }],
        ended: false,
      });
      expect(await bus.runStream.read(id, a, { count: 1 })).toEqual({
        entries: [{ offset: b, data: 'b' }],
        ended: true,
      });
      expect(await bus.runStream.read(id, b)).toEqual({ entries: [], ended: true });
      expect(await bus.runStream.read(id, STREAM_START)).toEqual({
        entries: [
          { offset: a, data: 'a' },
          { offset: b, data: 'b' },
        ],
        ended: true,
      });
      expect(await bus.runStream.state(id)).toBe('ended');
    });

    it('refuses an append after end with StreamEndedError and keeps the stream as it was', async () => {
      const id = streamId();
      await bus.runStream.append(id, 'a');
      await bus.runStream.end(id);
      const refused = bus.runStream.append(id, 'late');
      await expect(refused).rejects.toBeInstanceOf(StreamEndedError);
      await expect(refused).rejects.toMatchObject({ streamId: id });
      expect((await bus.runStream.read(id, STREAM_START)).entries.map((e) => e.data)).toEqual(['a']);
    });

    it('lets appends racing an end either land before it or be refused, never after it', async () => {
      const id = streamId();
      const appends = Array.from({ length: 30 }, (_, i) => bus.runStream.append(id, `${i}`));
      const ending = bus.runStream.end(id);
      const late = Array.from({ length: 30 }, (_, i) => bus.runStream.append(id, `late-${i}`));
      const settled = await Promise.allSettled([...appends, ...late]);
      await ending;
      const landed = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
      for (const s of settled) if (s.status === 'rejected') expect(s.reason).toBeInstanceOf(StreamEndedError);
      const read = await bus.runStream.read(id, STREAM_START);
      expect(read.ended).toBe(true);
      expect(read.entries.map((e) => e.offset).sort()).toEqual([...landed].sort());
      expect(landed.length).toBeGreaterThanOrEqual(30);
    });

    it('wakes a blocking read when the stream ends', async () => {
      const id = streamId();
      const last = await bus.runStream.append(id, 'a');
      const reading = bus.runStream.read(id, last, { blockMs: 5000 });
      await sleep(50);
      await bus.runStream.end(id);
      expect(await resolvesWithin('the blocking read', reading, 1000)).toEqual({ entries: [], ended: true });
    });

    it('treats a second end as harmless', async () => {
      const id = streamId();
      await bus.runStream.append(id, 'a');
      await bus.runStream.end(id);
      await bus.runStream.end(id);
      const read = await bus.runStream.read(id, STREAM_START);
      expect(read).toMatchObject({ ended: true, entries: [{ data: 'a' }] });
    });

    it('ends a stream that never had an entry as an empty, ended stream', async () => {
      const id = streamId();
      await bus.runStream.end(id);
      expect(await bus.runStream.state(id)).toBe('ended');
      expect(await bus.runStream.read(id, STREAM_START)).toEqual({ entries: [], ended: true });
    });

    it('reads an unknown stream as empty and reports it absent', async () => {
      const id = streamId();
      expect(await bus.runStream.read(id, STREAM_START)).toEqual({ entries: [], ended: false, absent: true });
      expect(await bus.runStream.state(id)).toBe('absent');
    });

    it('reports a stream read after one of its offsets that is gone as absent at once, even when asked to block', async () => {
      const short = await makeBus({ runStream: { maxLifetimeSeconds: 1 } });
      extraBuses.push(short);
      const id = streamId();
      const offset = await short.runStream.append(id, 'a');
      await eventually('the stream to expire', async () => (await short.runStream.state(id)) === 'absent', 3000);
      const started = Date.now();
      const read = await short.runStream.read(id, offset, { blockMs: 5000 });
      expect(read).toEqual({ entries: [], ended: false, absent: true });
      expect(Date.now() - started).toBeLessThan(1000);
    });

    it('waits on an unknown stream read from the start, and reports it absent when nothing came', async () => {
      const read = await bus.runStream.read(streamId(), STREAM_START, { blockMs: 200 });
      expect(read).toEqual({ entries: [], ended: false, absent: true });
    });

    it('refuses an append or an end with `existing` to a stream that is not there, and creates nothing', async () => {
      const id = streamId();
      await expect(bus.runStream.append(id, 'late', undefined, { existing: true })).rejects.toBeInstanceOf(
        StreamLostError,
      );
      await expect(bus.runStream.end(id, { existing: true })).rejects.toBeInstanceOf(StreamLostError);
      expect(await bus.runStream.state(id)).toBe('absent');
    });

    it('appends and ends with `existing` as usual when the stream is there', async () => {
      const id = streamId();
      await bus.runStream.append(id, 'first');
      const offset = await bus.runStream.append(id, 'second', undefined, { existing: true });
      await bus.runStream.end(id, { existing: true });
      expect(await bus.runStream.read(id, STREAM_START)).toMatchObject({
        entries: [{ data: 'first' }, { offset, data: 'second' }],
        ended: true,
      });
    });

    it('reports an appended-to stream as open', async () => {
      const id = streamId();
      await bus.runStream.append(id, 'a');
      expect(await bus.runStream.state(id)).toBe('open');
    });

    it('forgets an ended stream after its ttl', async () => {
      const id = streamId();
      await bus.runStream.append(id, 'a');
      await bus.runStream.end(id, { ttlSeconds: 1 });
      expect(await bus.runStream.state(id)).toBe('ended');
      await sleep(400);
      expect(await bus.runStream.state(id)).toBe('ended');
      await eventually('the stream to expire', async () => (await bus.runStream.state(id)) === 'absent', 2000);
      expect(await bus.runStream.read(id, STREAM_START)).toEqual({ entries: [], ended: false, absent: true });
    });

    it('forgets an open stream maxLifetimeSeconds after its last append', async () => {
      const short = await makeBus({ runStream: { maxLifetimeSeconds: 1 } });
      extraBuses.push(short);
      const id = streamId();
      await short.runStream.append(id, 'a');
      await sleep(600);
      await short.runStream.append(id, 'b');
      await sleep(600);
      // 1.2 s after the first append: alive only because the second one pushed the expiry back.
      expect(await short.runStream.state(id)).toBe('open');
      await eventually('the stream to expire', async () => (await short.runStream.state(id)) === 'absent', 2000);
    });

    it('rejects offsets and options it cannot mean', async () => {
      const id = streamId();
      await expect(bus.runStream.read(id, 'not-an-offset')).rejects.toThrow(RangeError);
      await expect(bus.runStream.read(id, STREAM_START, { count: 0 })).rejects.toThrow(RangeError);
      await expect(bus.runStream.read(id, STREAM_START, { blockMs: -1 })).rejects.toThrow(RangeError);
    });

    it('ends waiting reads when the bus closes', async () => {
      const reading = bus.runStream.read(streamId(), STREAM_START, { blockMs: 10_000 });
      await sleep(50);
      await bus.close();
      expect(await resolvesWithin('the blocking read', reading, 1000)).toMatchObject({ entries: [], ended: false });
    });
  });
}
