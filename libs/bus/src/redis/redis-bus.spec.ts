import { testServiceUrls } from '@fed/config';
import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { type Bus, createBus, type CreateBusOptions } from '../create-bus';
import { createEmailQueue } from '../create-email-queue';
import { type RunJobContext, RunJobLostError, STREAM_START } from '../ports';
import { deferred, eventually, resolvesWithin, runJob, sleep } from '../testing/async-helpers';
import { describeBusContract } from '../testing/bus-contract';
import { TcpProxy } from '@fed/testing';

// Every bus of this file lives under its own prefix, so parallel test files never meet.
const { redisUrl } = testServiceUrls();
const filePrefix = `test:${randomUUID()}:`;
let busCount = 0;
const uniquePrefix = () => `${filePrefix}${busCount++}:`;

async function redisBus(options: Partial<CreateBusOptions> = {}): Promise<Bus> {
  const bus = createBus({ redisUrl, keyPrefix: uniquePrefix(), ...options });
  await bus.ping();
  return bus;
}

let raw: Redis;

beforeAll(() => {
  raw = new Redis(redisUrl);
});

afterAll(async () => {
  let cursor = '0';
  do {
    const [next, keys] = await raw.scan(cursor, 'MATCH', `${filePrefix}*`, 'COUNT', 1000);
    if (keys.length > 0) await raw.del(...keys);
    cursor = next;
  } while (cursor !== '0');
  await raw.quit();
});

describeBusContract(
  'Redis',
  (settings) => redisBus(settings),
  (settings) => createEmailQueue({ redisUrl, keyPrefix: uniquePrefix(), ...settings }),
);

describe('Redis bus', () => {
  const buses: Bus[] = [];
  const proxies: TcpProxy[] = [];
  const startProxy = async () => {
    const proxy = await TcpProxy.start(redisUrl);
    proxies.push(proxy);
    return proxy;
  };
  const open = async (options: Partial<CreateBusOptions> = {}) => {
    const bus = await redisBus(options);
    buses.push(bus);
    return bus;
  };

  afterEach(async () => {
    await Promise.all(buses.splice(0).map((bus) => bus.close()));
    await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
  });

  it('is the Redis bus when given a URL', async () => {
    expect((await open()).kind).toBe('redis');
  });

  it('shares jobs, streams and signals between instances with the same key prefix', async () => {
    const keyPrefix = uniquePrefix();
    const producer = await open({ keyPrefix });
    const worker = await open({ keyPrefix });

    const delivered = deferred<string>();
    worker.runQueue.consume(async (job) => delivered.resolve(job.runId));
    const job = runJob();
    await producer.runQueue.enqueue(job);
    expect(await resolvesWithin('the job on the other instance', delivered.promise)).toBe(job.runId);

    const reading = producer.runStream.read(job.runId, STREAM_START, { blockMs: 5000 });
    await sleep(50);
    await worker.runStream.append(job.runId, 'chunk');
    expect((await resolvesWithin('the blocking read', reading)).entries.map((e) => e.data)).toEqual(['chunk']);

    const signalled = deferred<unknown>();
    await worker.signals.subscribe('run.cancelled', (p) => signalled.resolve(p));
    await producer.signals.publish('run.cancelled', { version: 1, conversationId: 'c1', runId: job.runId });
    expect(await resolvesWithin('the signal', signalled.promise)).toEqual({
      version: 1,
      conversationId: 'c1',
      runId: job.runId,
    });
  });

  it('shares nothing between instances with different key prefixes', async () => {
    const one = await open();
    const other = await open();
    let otherRuns = 0;
    const otherSignals: unknown[] = [];
    other.runQueue.consume(async () => void otherRuns++);
    await other.signals.subscribe('config.changed', (p) => void otherSignals.push(p));

    const oneRan = deferred();
    one.runQueue.consume(async () => oneRan.resolve());
    const job = runJob();
    await one.runQueue.enqueue(job);
    await resolvesWithin('the job on its own instance', oneRan.promise);
    await one.runStream.append(job.runId, 'chunk');
    const oneSignal = deferred();
    await one.signals.subscribe('config.changed', () => oneSignal.resolve());
    await one.signals.publish('config.changed', { version: 1, area: 'x' });
    await resolvesWithin('the signal on its own instance', oneSignal.promise);
    await sleep(50);

    expect(otherRuns).toBe(0);
    expect(otherSignals).toEqual([]);
    expect(await other.runStream.state(job.runId)).toBe('absent');
    expect(await other.runQueue.pendingCount()).toBe(0);
  });

  it('keeps every key it writes under its key prefix', async () => {
    const keyPrefix = uniquePrefix();
    const bus = await open({ keyPrefix });
    const job = runJob();
    await bus.runQueue.enqueue(job);
    await bus.runStream.append(job.runId, 'chunk');
    const keys = await raw.keys(`*${job.runId}*`);
    expect(keys.length).toBeGreaterThanOrEqual(2);
    for (const key of keys) expect(key.startsWith(keyPrefix)).toBe(true);
  });

  it('gives an open stream a max-lifetime expiry, so an abandoned one vanishes', async () => {
    const keyPrefix = uniquePrefix();
    const bus = await open({ keyPrefix, runStream: { maxLifetimeSeconds: 3600 } });
    await bus.runStream.append('abandoned', 'chunk');
    const ttl = await raw.pttl(`${keyPrefix}run-stream:abandoned`);
    expect(ttl).toBeGreaterThan(3590_000);
    expect(ttl).toBeLessThanOrEqual(3600_000);
  });

  it('ignores malformed messages on a signal channel', async () => {
    const keyPrefix = uniquePrefix();
    const bus = await open({ keyPrefix });
    const received: unknown[] = [];
    await bus.signals.subscribe('config.changed', (p) => void received.push(p));
    for (const junk of ['not json', '42', 'null', '[1]', '{"version":1,']) {
      await raw.publish(`${keyPrefix}signal:config.changed`, junk);
    }
    await bus.signals.publish('config.changed', { version: 1, area: 'after-junk' });
    await eventually('the valid signal', () => received.length > 0);
    await sleep(20);
    expect(received).toEqual([{ version: 1, area: 'after-junk' }]);
  });

  it('serves any number of blocking reads over one subscriber connection', async () => {
    const keyPrefix = uniquePrefix();
    const bus = await open({ keyPrefix });
    const connections = async () => {
      const clients = (await raw.client('LIST')) as string;
      return clients.split('\n').filter((line) => line.includes(`name=${keyPrefix}`)).length;
    };
    // Warm up: the first blocking read makes the stream subscriber connect.
    await bus.runStream.read('warm-up', STREAM_START, { blockMs: 20 });
    const before = await connections();
    const ids = Array.from({ length: 50 }, (_, i) => `stream-${i}`);
    const reads = ids.map((id) => bus.runStream.read(id, STREAM_START, { blockMs: 5000 }));
    await sleep(100);
    expect(await connections()).toBe(before);
    const subscriber = ((await raw.client('LIST')) as string)
      .split('\n')
      .find((line) => line.includes(`name=${keyPrefix}bus-stream-sub`));
    expect(subscriber).toMatch(/ sub=5[0-9] /);
    await Promise.all(ids.map((id) => bus.runStream.append(id, 'x')));
    await resolvesWithin('all blocking reads', Promise.all(reads));
  });

  it('fails ping fast when Redis is unreachable, and still closes cleanly', async () => {
    const errors: Error[] = [];
    const bus = createBus({
      redisUrl: 'redis://127.0.0.1:1',
      keyPrefix: uniquePrefix(),
      onError: (error) => void errors.push(error),
    });
    bus.runQueue.consume(async () => undefined);
    const started = Date.now();
    await expect(bus.ping()).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(1500);
    expect(errors.length).toBeGreaterThan(0);
    await resolvesWithin('close', bus.close(), 3000);
  });

  it('closes promptly, ending waiting reads, when Redis went away while it was in use', async () => {
    const proxy = await startProxy();
    const bus = createBus({ redisUrl: proxy.url, keyPrefix: uniquePrefix(), onError: () => undefined });
    await bus.ping();
    const started = deferred();
    let handlerDone = false;
    bus.runQueue.consume(async (_job, { signal }) => {
      started.resolve();
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      handlerDone = true;
      throw new Error('interrupted');
    });
    await bus.runQueue.enqueue(runJob());
    await resolvesWithin('the job to start', started.promise);
    await bus.signals.subscribe('config.changed', () => undefined);
    const reading = bus.runStream.read('lost', STREAM_START, { blockMs: 10_000 });
    await sleep(200);
    await proxy.cut();
    await sleep(300);
    const closingAt = Date.now();
    await resolvesWithin('close', bus.close(), 5000);
    expect(Date.now() - closingAt).toBeLessThan(3000);
    expect(handlerDone).toBe(true);
    // The stream was never written: the read ends empty (and says the stream is absent).
    expect(await resolvesWithin('the blocking read', reading, 1000)).toMatchObject({ entries: [], ended: false });
  });

  it('renews the lock of a job that runs longer than the stall time, so no other consumer gets it', async () => {
    const keyPrefix = uniquePrefix();
    const first = await open({ keyPrefix });
    const second = await open({ keyPrefix });
    const runs: string[] = [];
    const finished = deferred<boolean>();
    first.runQueue.consume(
      async (_job, { holdsJob }) => {
        runs.push('first');
        // Longer than the stall time and a check: unrenewed, the lock would have lapsed and the job gone to the other.
        await sleep(4000);
        finished.resolve(await holdsJob());
      },
      { stallMs: 3000 },
    );
    await first.runQueue.enqueue(runJob());
    await eventually('the first consumer to take the job', () => runs.length === 1);
    second.runQueue.consume(async () => void runs.push('second'), { stallMs: 3000 });
    expect(await resolvesWithin('the long job', finished.promise, 30_000)).toBe(true);
    await eventually('nothing pending', async () => (await first.runQueue.pendingCount()) === 0);
    expect(runs).toEqual(['first']);
  });

  it('pauses the writes of a job whose lock renewals go unanswered for less than the stall time, then lets it finish: nobody else runs it', async () => {
    const proxy = await startProxy();
    const keyPrefix = uniquePrefix();
    const slowed = createBus({ redisUrl: proxy.url, keyPrefix, onError: () => undefined });
    buses.push(slowed);
    const direct = await open({ keyPrefix });
    await slowed.ping();
    const runs: string[] = [];
    const changes: string[] = [];
    let context: RunJobContext | undefined;
    const release = deferred();
    const finished = deferred();
    slowed.runQueue.consume(
      async (_job, taken) => {
        runs.push('slowed');
        context = taken;
        await release.promise;
        finished.resolve();
      },
      { stallMs: 6000, onHoldChange: (_runId, hold) => void changes.push(hold) },
    );
    await direct.runQueue.enqueue(runJob());
    await eventually('the job on the consumer about to be slowed', () => context !== undefined);
    direct.runQueue.consume(async () => void runs.push('direct'), { stallMs: 6000 });

    // Redis gets nothing of this consumer (renewals included) and answers nothing; its lock still runs.
    proxy.pause();
    await eventually('the hold to be unconfirmed', () => context?.hold() === 'unconfirmed', 30_000);
    let answer: boolean | undefined;
    const asked = context?.holdsJob().then((held) => (answer = held));
    await sleep(50);
    // A write waits: it is neither allowed nor refused while the hold is unconfirmed.
    expect(answer).toBeUndefined();

    // Resumed within the stall time (the lock surely has half of it left when the hold goes unconfirmed): the
    // renewals sent after it confirm the hold again.
    proxy.resume();
    expect(await resolvesWithin('the hold to be confirmed', asked as Promise<boolean>, 30_000)).toBe(true);
    expect(context?.hold()).toBe('held');
    expect(context?.signal.aborted).toBe(false);
    expect(changes).toEqual(['unconfirmed', 'held']);
    release.resolve();
    await finished.promise;
    await eventually('nothing pending', async () => (await direct.runQueue.pendingCount()) === 0, 30_000);
    expect(runs).toEqual(['slowed']);
  });

  it('hands the job of a consumer cut off from Redis to another once its lock lapsed, and tells the cut-off one it lost the job: its writes are refused', async () => {
    const proxy = await startProxy();
    const keyPrefix = uniquePrefix();
    const cutOff = createBus({ redisUrl: proxy.url, keyPrefix, onError: () => undefined });
    buses.push(cutOff);
    const direct = await open({ keyPrefix });
    await cutOff.ping();
    let context: RunJobContext | undefined;
    const handlerEnded = deferred();
    cutOff.runQueue.consume(
      async (_job, taken) => {
        context = taken;
        await new Promise((resolve) => taken.signal.addEventListener('abort', resolve, { once: true }));
        handlerEnded.resolve();
        throw new Error('stopped');
      },
      { stallMs: 1000 },
    );
    const job = runJob();
    await direct.runQueue.enqueue(job);
    await eventually('the job on the consumer about to be cut off', () => context !== undefined);
    const takenAgain = deferred<number>();
    direct.runQueue.consume(async (_job, { attempt }) => takenAgain.resolve(attempt), { stallMs: 1000 });

    await proxy.cut();
    // The lock lapses, the next check hands the job out (BullMQ counts it as attempt 1 again).
    expect(await resolvesWithin('the job on the other consumer', takenAgain.promise, 30_000)).toBe(1);
    // The cut-off consumer knows by its own clock that its lock may have lapsed: no renewal was answered.
    await resolvesWithin('the cut-off handler to learn it lost the job', handlerEnded.promise, 30_000);
    expect(context?.signal.reason).toBeInstanceOf(RunJobLostError);
    expect(context?.hold()).toBe('lost');
    expect(await context?.holdsJob()).toBe(false);

    await proxy.restore();
    await eventually('nothing pending', async () => (await direct.runQueue.pendingCount()) === 0, 30_000);
  });

  it('counts consumers without CLIENT LIST, for a Redis user denied the CLIENT command', async () => {
    const user = `test-${randomUUID()}`;
    const password = randomUUID();
    await raw.acl('SETUSER', user, 'on', `>${password}`, '~*', '&*', '+@all', '-client');
    try {
      const url = new URL(redisUrl);
      url.username = user;
      url.password = password;
      const keyPrefix = uniquePrefix();
      const limited = await open({ redisUrl: url.toString(), keyPrefix });
      const consumer = limited.runQueue.consume(async () => undefined);
      await eventually('the consumer to be counted', async () => (await limited.runQueue.stats()).consumers === 1);
      expect((await limited.runQueue.stats()).jobs).toEqual({ waiting: 0, active: 0, delayed: 0 });
      await consumer.close();
      expect((await limited.runQueue.stats()).consumers).toBe(0);
    } finally {
      await raw.acl('DELUSER', user);
    }
  });

  it('delivers signals and wakes waiting reads again once Redis is back', async () => {
    const proxy = await startProxy();
    const keyPrefix = uniquePrefix();
    const flaky = createBus({ redisUrl: proxy.url, keyPrefix, onError: () => undefined });
    buses.push(flaky);
    const direct = await open({ keyPrefix });
    await flaky.ping();
    const signals: unknown[] = [];
    await flaky.signals.subscribe('config.changed', (p) => void signals.push(p));
    const offset = await direct.runStream.append('survivor', 'before');
    const reading = flaky.runStream.read('survivor', offset, { blockMs: 10_000 });
    await sleep(100);

    await proxy.cut();
    // Appended while the reader's instance is cut off: its nudge is lost, the re-check on reconnect is not.
    await direct.runStream.append('survivor', 'during the outage');
    await sleep(300);
    await proxy.restore();
    expect((await resolvesWithin('the blocking read', reading, 3000)).entries.map((e) => e.data)).toEqual([
      'during the outage',
    ]);
    await eventually('the re-subscribed signal', async () => {
      await direct.signals.publish('config.changed', { version: 1, area: 'after-outage' });
      return signals.length > 0;
    });
    expect(signals[0]).toEqual({ version: 1, area: 'after-outage' });
  });
});
