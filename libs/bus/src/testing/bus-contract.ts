import { type RunCancelledV1, type RunJob } from '@fed/contracts';
import { randomUUID } from 'node:crypto';
import { type Bus, type CreateBusOptions } from '../create-bus';
import { type RunConsumer, STREAM_START, StreamEndedError, StreamLostError } from '../ports';
import { deferred, eventually, offsetKey, resolvesWithin, runJob, sleep } from './async-helpers';

export type BusSettings = Pick<CreateBusOptions, 'runQueue' | 'runStream'>;
/** Builds a ready bus with its own key prefix, applying `settings` on top of the implementation's. */
export type MakeBus = (settings?: BusSettings) => Promise<Bus>;

const BACKOFF_MS = 25;

/**
 * The behaviour every Bus implementation must show. Written once; each implementation's spec file
 * calls it, so the in-process bus cannot drift from the Redis one.
 */
export function describeBusContract(name: string, makeBus: MakeBus): void {
  describe(`${name} bus contract`, () => {
    let bus: Bus;
    const extraBuses: Bus[] = [];
    const consumers: RunConsumer[] = [];

    beforeEach(async () => {
      bus = await makeBus({ runQueue: { backoffMs: BACKOFF_MS } });
    });

    afterEach(async () => {
      await Promise.all(consumers.splice(0).map((c) => c.close()));
      await Promise.all([bus, ...extraBuses.splice(0)].map((b) => b.close()));
    });

    const consume = (...args: Parameters<Bus['runQueue']['consume']>) => {
      const consumer = bus.runQueue.consume(...args);
      consumers.push(consumer);
      return consumer;
    };

    describe('RunQueue', () => {
      it('delivers an enqueued job to a waiting consumer with its payload, as attempt 1', async () => {
        const delivered = deferred<{ job: RunJob; attempt: number; aborted: boolean }>();
        consume(async (job, { attempt, signal }) => delivered.resolve({ job, attempt, aborted: signal.aborted }));
        const job = runJob({ tenantId: 'tenant-1' });
        await bus.runQueue.enqueue(job);
        expect(await resolvesWithin('delivery', delivered.promise)).toEqual({ job, attempt: 1, aborted: false });
      });

      it('keeps a job enqueued before any consumer exists until one starts', async () => {
        const job = runJob();
        await bus.runQueue.enqueue(job);
        const delivered = deferred<RunJob>();
        consume(async (received) => delivered.resolve(received));
        expect(await resolvesWithin('delivery', delivered.promise)).toEqual(job);
      });

      it('queues a run id enqueued twice only once, and runs it once', async () => {
        const job = runJob();
        await bus.runQueue.enqueue(job);
        await bus.runQueue.enqueue({ ...job, userId: 'someone-else' });
        expect(await bus.runQueue.pendingCount()).toBe(1);
        const runs: RunJob[] = [];
        consume(async (received) => void runs.push(received));
        await eventually('the job to finish', async () => runs.length > 0 && (await bus.runQueue.pendingCount()) === 0);
        await sleep(100);
        expect(runs).toEqual([job]);
      });

      it('refuses a run id again after it finished (within the dedupe window)', async () => {
        const job = runJob();
        let runs = 0;
        consume(async () => void runs++);
        await bus.runQueue.enqueue(job);
        await eventually('the job to finish', async () => runs === 1 && (await bus.runQueue.pendingCount()) === 0);
        await bus.runQueue.enqueue(job);
        expect(await bus.runQueue.pendingCount()).toBe(0);
        await sleep(100);
        expect(runs).toBe(1);
      });

      it('retries a failing job with a growing attempt number and stops after the default 3 attempts', async () => {
        const attempts: number[] = [];
        consume(async (_job, { attempt }) => {
          attempts.push(attempt);
          throw new Error('model unavailable');
        });
        await bus.runQueue.enqueue(runJob());
        await eventually('three attempts and nothing pending', async () => {
          return attempts.length >= 3 && (await bus.runQueue.pendingCount()) === 0;
        });
        // Longer than the next backoff would be (4 × BACKOFF_MS): no fourth attempt comes.
        await sleep(BACKOFF_MS * 8);
        expect(attempts).toEqual([1, 2, 3]);
      });

      it('honours the attempts given at enqueue', async () => {
        const attempts: number[] = [];
        consume(async (_job, { attempt }) => {
          attempts.push(attempt);
          throw new Error('boom');
        });
        await bus.runQueue.enqueue(runJob(), { attempts: 2 });
        await eventually('two attempts and nothing pending', async () => {
          return attempts.length >= 2 && (await bus.runQueue.pendingCount()) === 0;
        });
        await sleep(BACKOFF_MS * 8);
        expect(attempts).toEqual([1, 2]);
      });

      it('waits longer before each further retry (exponential backoff)', async () => {
        const startedAt: number[] = [];
        consume(async () => {
          startedAt.push(Date.now());
          throw new Error('boom');
        });
        await bus.runQueue.enqueue(runJob());
        await eventually('three attempts', () => startedAt.length === 3);
        const [first, second, third] = startedAt;
        // Timers never fire early; allow a few ms of clock granularity.
        expect(second - first).toBeGreaterThanOrEqual(BACKOFF_MS - 5);
        expect(third - second).toBeGreaterThanOrEqual(2 * BACKOFF_MS - 5);
      });

      it('completes a job that succeeds on a retry', async () => {
        const attempts: number[] = [];
        consume(async (_job, { attempt }) => {
          attempts.push(attempt);
          if (attempt === 1) throw new Error('transient');
        });
        await bus.runQueue.enqueue(runJob());
        await eventually('the job to finish', async () => {
          return attempts.length === 2 && (await bus.runQueue.pendingCount()) === 0;
        });
        await sleep(BACKOFF_MS * 4);
        expect(attempts).toEqual([1, 2]);
      });

      it('runs at most `concurrency` jobs at once on one consumer', async () => {
        let running = 0;
        let mostAtOnce = 0;
        let done = 0;
        consume(
          async () => {
            mostAtOnce = Math.max(mostAtOnce, ++running);
            await sleep(40);
            running--;
            done++;
          },
          { concurrency: 2 },
        );
        for (let i = 0; i < 6; i++) await bus.runQueue.enqueue(runJob());
        await eventually('all six jobs', () => done === 6);
        expect(mostAtOnce).toBe(2);
      });

      it('runs one job at a time by default', async () => {
        let running = 0;
        let mostAtOnce = 0;
        let done = 0;
        consume(async () => {
          mostAtOnce = Math.max(mostAtOnce, ++running);
          await sleep(20);
          running--;
          done++;
        });
        for (let i = 0; i < 3; i++) await bus.runQueue.enqueue(runJob());
        await eventually('all three jobs', () => done === 3);
        expect(mostAtOnce).toBe(1);
      });

      it('counts waiting and running jobs as pending, and finished ones no more', async () => {
        for (let i = 0; i < 3; i++) await bus.runQueue.enqueue(runJob());
        expect(await bus.runQueue.pendingCount()).toBe(3);
        const release = deferred();
        let started = 0;
        consume(async () => {
          started++;
          await release.promise;
        });
        await eventually('the first job to start', () => started === 1);
        expect(await bus.runQueue.pendingCount()).toBe(3);
        release.resolve();
        await eventually('nothing pending', async () => (await bus.runQueue.pendingCount()) === 0);
        expect(started).toBe(3);
      });

      it('counts a job waiting for its retry as pending', async () => {
        const slow = await makeBus({ runQueue: { backoffMs: 60_000 } });
        extraBuses.push(slow);
        let attempts = 0;
        slow.runQueue.consume(async () => {
          attempts++;
          throw new Error('boom');
        });
        await slow.runQueue.enqueue(runJob());
        await eventually('the failed first attempt', () => attempts === 1);
        await sleep(100);
        expect(await slow.runQueue.pendingCount()).toBe(1);
        expect(attempts).toBe(1);
      });

      it('aborts the signal of running jobs when their consumer closes, and waits for them to finish', async () => {
        const started = deferred<AbortSignal>();
        let finished = false;
        const consumer = consume(async (_job, { signal }) => {
          started.resolve(signal);
          await sleep(150);
          finished = true;
        });
        await bus.runQueue.enqueue(runJob());
        const signal = await resolvesWithin('the job to start', started.promise);
        const closing = consumer.close();
        expect(signal.aborted).toBe(true);
        expect(finished).toBe(false);
        await closing;
        expect(finished).toBe(true);
      });

      it('closes the consumers when the queue closes, waiting for their running jobs', async () => {
        const started = deferred();
        let finished = false;
        consume(async () => {
          started.resolve();
          await sleep(100);
          finished = true;
        });
        await bus.runQueue.enqueue(runJob());
        await resolvesWithin('the job to start', started.promise);
        await bus.runQueue.close();
        expect(finished).toBe(true);
      });

      it('hands a job cut short by closing its consumer to the next consumer, without using an attempt', async () => {
        const job = runJob();
        const started = deferred();
        const first = consume(async (_job, { signal }) => {
          started.resolve();
          await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
          throw new Error('interrupted by shutdown');
        });
        await bus.runQueue.enqueue(job);
        await resolvesWithin('the job to start', started.promise);
        await first.close();
        const redelivered = deferred<{ runId: string; attempt: number }>();
        consume(async (received, { attempt }) => redelivered.resolve({ runId: received.runId, attempt }));
        expect(await resolvesWithin('redelivery', redelivered.promise)).toEqual({ runId: job.runId, attempt: 1 });
      });

      it('does not run again a job that finished although its consumer was closing', async () => {
        const started = deferred();
        const first = consume(async () => {
          started.resolve();
          await sleep(50);
        });
        await bus.runQueue.enqueue(runJob());
        await resolvesWithin('the job to start', started.promise);
        await first.close();
        let again = 0;
        consume(async () => void again++);
        await sleep(150);
        expect(again).toBe(0);
        expect(await bus.runQueue.pendingCount()).toBe(0);
      });

      it('refuses run ids that BullMQ cannot use as job ids', async () => {
        await expect(bus.runQueue.enqueue(runJob({ runId: '12345' }))).rejects.toThrow(RangeError);
        await expect(bus.runQueue.enqueue(runJob({ runId: 'a:b' }))).rejects.toThrow(RangeError);
        await expect(bus.runQueue.enqueue(runJob({ runId: '' }))).rejects.toThrow(RangeError);
        expect(await bus.runQueue.pendingCount()).toBe(0);
      });

      it('gives a running job a hold on it for as long as it runs (hold, holdsJob)', async () => {
        const held = deferred<[string, boolean]>();
        consume(async (_job, { hold, holdsJob }) => held.resolve([hold(), await holdsJob()]));
        await bus.runQueue.enqueue(runJob());
        expect(await resolvesWithin('the job', held.promise)).toEqual(['held', true]);
      });

      it('drains: takes no more jobs, lets the running one finish with its signal untouched, then resolves', async () => {
        const running = runJob();
        const started = deferred<AbortSignal>();
        const release = deferred();
        const ran: string[] = [];
        const draining = consume(async (job, { signal }) => {
          ran.push(job.runId);
          if (job.runId !== running.runId) return;
          started.resolve(signal);
          await release.promise;
        });
        await bus.runQueue.enqueue(running);
        const signal = await resolvesWithin('the job to start', started.promise);
        let drained = false;
        const drain = draining.drain().then(() => (drained = true));
        const later = runJob();
        await bus.runQueue.enqueue(later);
        await sleep(150);
        expect(drained).toBe(false);
        expect(signal.aborted).toBe(false);

        release.resolve();
        await resolvesWithin('the drain', drain);
        await sleep(100);
        expect(ran).toEqual([running.runId]);
        // The running job completed; the later one still waits, for another consumer.
        expect(await bus.runQueue.pendingCount()).toBe(1);
        const taken = deferred<string>();
        consume(async (job) => taken.resolve(job.runId));
        expect(await resolvesWithin('the later job on another consumer', taken.promise)).toBe(later.runId);
      });

      it('resolves a drain at once when nothing runs', async () => {
        const idle = consume(async () => undefined);
        await resolvesWithin('the drain', idle.drain());
      });

      it('hands a job still running when a draining consumer closes to the next consumer, without using an attempt', async () => {
        const job = runJob();
        const started = deferred();
        const first = consume(async (_job, { signal }) => {
          started.resolve();
          await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
          throw new Error('interrupted by shutdown');
        });
        await bus.runQueue.enqueue(job);
        await resolvesWithin('the job to start', started.promise);
        const drain = first.drain();
        await sleep(50);
        await first.close();
        await resolvesWithin('the drain, once the job was handed back', drain);
        const redelivered = deferred<{ runId: string; attempt: number }>();
        consume(async (received, { attempt }) => redelivered.resolve({ runId: received.runId, attempt }));
        expect(await resolvesWithin('redelivery', redelivered.promise)).toEqual({ runId: job.runId, attempt: 1 });
      });

      it('tells how many jobs wait, run and wait for a retry, how old the next in line is, and how many consumers there are', async () => {
        const slow = await makeBus({ runQueue: { backoffMs: 60_000 } });
        extraBuses.push(slow);
        expect(await slow.runQueue.stats()).toEqual({
          jobs: { waiting: 0, active: 0, delayed: 0 },
          oldestWaitingSeconds: 0,
          consumers: 0,
        });
        const failing = runJob();
        const blocking = runJob();
        const waiting = runJob();
        const queuedFrom = Date.now();
        for (const job of [failing, blocking, waiting]) await slow.runQueue.enqueue(job);
        const queuedBy = Date.now();
        expect((await slow.runQueue.stats()).jobs?.waiting).toBe(3);

        const release = deferred();
        let blocked = false;
        const consumer = slow.runQueue.consume(async (job) => {
          if (job.runId === failing.runId) throw new Error('model unavailable');
          blocked = true;
          await release.promise;
        });
        await eventually('the second job to run', () => blocked);
        await eventually('the consumer to be connected', async () => (await slow.runQueue.stats()).consumers === 1);
        const askedFrom = Date.now();
        const stats = await slow.runQueue.stats();
        const askedBy = Date.now();
        expect(stats).toEqual({
          jobs: { waiting: 1, active: 1, delayed: 1 },
          oldestWaitingSeconds: expect.any(Number),
          consumers: 1,
        });
        // Whichever job waits was queued between queuedFrom and queuedBy: its age at the question lies between these.
        expect(stats.oldestWaitingSeconds).toBeGreaterThanOrEqual((askedFrom - queuedBy) / 1000);
        expect(stats.oldestWaitingSeconds).toBeLessThanOrEqual((askedBy - queuedFrom) / 1000);

        const drain = consumer.drain();
        expect((await slow.runQueue.stats()).consumers).toBe(1);
        release.resolve();
        await resolvesWithin('the drain', drain);
        await consumer.close();
        await eventually('no consumer', async () => (await slow.runQueue.stats()).consumers === 0);
        expect((await slow.runQueue.stats()).jobs).toEqual({ waiting: 1, active: 0, delayed: 1 });
      });
    });

    describe('RunStream', () => {
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

    describe('Signals', () => {
      const cancelled = (): RunCancelledV1 => ({ version: 1, conversationId: randomUUID(), runId: randomUUID() });

      it('delivers a payload published after subscribe resolved', async () => {
        const received = deferred<RunCancelledV1>();
        await bus.signals.subscribe('run.cancelled', (payload) => received.resolve(payload));
        const payload = cancelled();
        await bus.signals.publish('run.cancelled', payload);
        expect(await resolvesWithin('the signal', received.promise)).toEqual(payload);
      });

      it('delivers to every subscriber of the topic', async () => {
        const first = deferred<RunCancelledV1>();
        const second = deferred<RunCancelledV1>();
        await bus.signals.subscribe('run.cancelled', (p) => first.resolve(p));
        await bus.signals.subscribe('run.cancelled', (p) => second.resolve(p));
        const payload = cancelled();
        await bus.signals.publish('run.cancelled', payload);
        expect(await resolvesWithin('both deliveries', Promise.all([first.promise, second.promise]))).toEqual([
          payload,
          payload,
        ]);
      });

      it('stops delivery to a handler once it unsubscribed', async () => {
        const gone: RunCancelledV1[] = [];
        const witness = deferred<RunCancelledV1>();
        const subscription = await bus.signals.subscribe('run.cancelled', (p) => void gone.push(p));
        await bus.signals.subscribe('run.cancelled', (p) => witness.resolve(p));
        await subscription.unsubscribe();
        await bus.signals.publish('run.cancelled', cancelled());
        // The witness got it, so the unsubscribed handler would have had it by now.
        await resolvesWithin('the witness delivery', witness.promise);
        await sleep(20);
        expect(gone).toEqual([]);
      });

      it('keeps topics apart', async () => {
        const revoked: unknown[] = [];
        const changed = deferred<unknown>();
        await bus.signals.subscribe('auth.token-revoked', (p) => void revoked.push(p));
        await bus.signals.subscribe('config.changed', (p) => changed.resolve(p));
        await bus.signals.publish('config.changed', { version: 1, area: 'gateway.routes' });
        expect(await resolvesWithin('the config signal', changed.promise)).toEqual({
          version: 1,
          area: 'gateway.routes',
        });
        await sleep(20);
        expect(revoked).toEqual([]);
      });

      it('keeps delivering to other handlers, and later to itself, when a handler throws', async () => {
        let thrownTimes = 0;
        const others: RunCancelledV1[] = [];
        await bus.signals.subscribe('run.cancelled', () => {
          thrownTimes++;
          throw new Error('handler bug');
        });
        await bus.signals.subscribe('run.cancelled', (p) => void others.push(p));
        const first = cancelled();
        const second = cancelled();
        await bus.signals.publish('run.cancelled', first);
        await bus.signals.publish('run.cancelled', second);
        await eventually('both deliveries to the healthy handler', () => others.length === 2);
        expect(others).toEqual([first, second]);
        await eventually('both calls of the throwing handler', () => thrownTimes === 2);
      });

      it('gives each handler its own copy of the payload', async () => {
        const seen: RunCancelledV1[] = [];
        const handler = (p: RunCancelledV1) => {
          seen.push({ ...p });
          p.conversationId = 'mutated';
        };
        await bus.signals.subscribe('run.cancelled', handler);
        await bus.signals.subscribe('run.cancelled', handler);
        const payload = cancelled();
        await bus.signals.publish('run.cancelled', payload);
        await eventually('both deliveries', () => seen.length === 2);
        expect(seen).toEqual([payload, payload]);
      });

      it('keeps a retained payload for readers that come later, until its time ends', async () => {
        const now = Date.now() / 1000;
        const live = deferred<unknown>();
        await bus.signals.subscribe('auth.token-revoked', (p) => live.resolve(p));
        const lasting = { version: 1 as const, jti: randomUUID(), expiresAt: Math.floor(now) + 60 };
        const ended = { version: 1 as const, jti: randomUUID(), expiresAt: Math.floor(now) - 1 };
        await bus.signals.publishRetained('auth.token-revoked', lasting, now + 60);
        await bus.signals.publishRetained('auth.token-revoked', ended, now - 1);
        expect(await resolvesWithin('the live delivery', live.promise)).toEqual(lasting);
        expect(await bus.signals.retained('auth.token-revoked')).toEqual([lasting]);
        expect(await bus.signals.retained('auth.sessions-invalidated')).toEqual([]);
      });

      it('publishes with no subscriber without error', async () => {
        await expect(bus.signals.publish('config.changed', { version: 1, area: 'nobody' })).resolves.toBeUndefined();
      });
    });

    describe('Counters', () => {
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

    describe('Bus', () => {
      it('answers ping while open and refuses work after close', async () => {
        await expect(bus.ping()).resolves.toBeUndefined();
        await bus.close();
        await expect(bus.ping()).rejects.toThrow();
        await expect(bus.runQueue.enqueue(runJob())).rejects.toThrow();
        await expect(bus.runStream.append('x', 'y')).rejects.toThrow();
        await expect(bus.signals.publish('config.changed', { version: 1, area: 'x' })).rejects.toThrow();
      });
    });
  });
}
