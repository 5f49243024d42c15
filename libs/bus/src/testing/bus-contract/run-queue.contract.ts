import { type RunJob } from '@fed/contracts';
import { type Bus } from '../../create-bus';
import { type RunConsumer } from '../../ports';
import { deferred, eventually, resolvesWithin, runJob, sleep } from '../async-helpers';
import { BACKOFF_MS, closeAll, CONTRACT_SETTINGS, type MakeBus } from './fixture';

export function describeRunQueueContract(makeBus: MakeBus): void {
  describe('RunQueue', () => {
    let bus: Bus;
    const extraBuses: Bus[] = [];
    const consumers: RunConsumer[] = [];

    beforeEach(async () => {
      bus = await makeBus(CONTRACT_SETTINGS);
    });

    afterEach(() => closeAll(consumers, [bus, ...extraBuses.splice(0)]));

    const consume = (...args: Parameters<Bus['runQueue']['consume']>) => {
      const consumer = bus.runQueue.consume(...args);
      consumers.push(consumer);
      return consumer;
    };

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
}
