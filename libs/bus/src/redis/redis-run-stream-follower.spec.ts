import { testServiceUrls } from '@fed/config';
import { TcpProxy } from '@fed/testing';
import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { STREAM_START, type StreamEntry } from '../ports';
import { eventually, sleep } from '../testing/async-helpers';
import { RedisRunStream, type RedisRunStreamOptions } from './redis-run-stream';

// A follower (one reader across its reads, as an SSE relay is) waits on an idle stream without reading
// it again on every wait, and still misses nothing: appends, a reconnect, a stream lost without a word.
describe('Redis run stream: a follower', () => {
  const { redisUrl } = testServiceUrls();
  const keyPrefix = `test:${randomUUID()}:`;
  const opened: RedisRunStream[] = [];
  const proxies: TcpProxy[] = [];
  let raw: Redis;
  let monitor: Redis | undefined;

  const open = async (options: Partial<RedisRunStreamOptions> = {}) => {
    const stream = new RedisRunStream({ url: redisUrl, keyPrefix, ...options });
    opened.push(stream);
    await stream.ping();
    return stream;
  };
  const key = (id: string) => `${keyPrefix}run-stream:${id}`;

  /** Counts the commands any client sends that name `id`'s stream key (its reads, when nothing is appended). */
  const commandsOn = async (id: string) => {
    const counter = { count: 0 };
    monitor = await raw.monitor();
    monitor.on('monitor', (_time: string, args: string[]) => {
      if (args.includes(key(id))) counter.count++;
    });
    return counter;
  };

  beforeAll(() => {
    raw = new Redis(redisUrl);
  });

  afterEach(async () => {
    monitor?.disconnect();
    monitor = undefined;
    await Promise.all(opened.splice(0).map((stream) => stream.close()));
    await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
  });

  afterAll(async () => {
    const keys = await raw.keys(`${keyPrefix}*`);
    if (keys.length > 0) await raw.del(...keys);
    await raw.quit();
  });

  it('waits on an idle stream without reading it again, where a reader without one reads it on every wait', async () => {
    // Long enough for the first wait's SUBSCRIBE to be confirmed, and for MONITOR to report every command
    // sent before a count is taken, on a CI machine busy with another test worker (30 and 50 ms failed once).
    const WAIT_MS = 150;
    const MONITOR_LAG_MS = 250;
    const stream = await open();
    const id = randomUUID();
    const first = await stream.append(id, 'a');
    const counted = await commandsOn(id);
    const follower = {};
    const idleReads = async (options: { follower?: object }) => {
      for (let i = 0; i < 5; i++) {
        const read = await stream.read(id, first, { blockMs: WAIT_MS, ...options });
        expect(read).toEqual({ entries: [], ended: false });
      }
    };
    // The first wait reads the stream (it does not know where it stands), later ones do not.
    await stream.read(id, first, { blockMs: WAIT_MS, follower });
    await sleep(MONITOR_LAG_MS);
    const settled = counted.count;
    await idleReads({ follower });
    await sleep(MONITOR_LAG_MS);
    expect(counted.count).toBe(settled);

    await idleReads({});
    await sleep(MONITOR_LAG_MS);
    expect(counted.count).toBeGreaterThanOrEqual(settled + 5);
  });

  it('is woken by every append and reads each entry once, in order, whenever it comes', async () => {
    const reader = await open();
    const writer = await open();
    const id = randomUUID();
    await writer.append(id, '0');
    const follower = {};
    const seen: StreamEntry[] = [];
    let done = false;
    const following = (async () => {
      let cursor = STREAM_START;
      while (!done || seen.length < 200) {
        const read = await reader.read(id, cursor, { blockMs: 15, follower });
        for (const entry of read.entries) {
          seen.push(entry);
          cursor = entry.offset;
        }
        if (done && read.entries.length === 0 && seen.length >= 200) break;
      }
    })();
    for (let n = 1; n < 200; n++) {
      await writer.append(id, String(n));
      // Appends land while the reader waits, reads, or is between two reads.
      if (n % 3 === 0) await sleep(n % 7);
    }
    done = true;
    await following;
    expect(seen.map((entry) => entry.data)).toEqual(Array.from({ length: 200 }, (_, n) => String(n)));
  });

  /** A follower reading through a proxy the test can cut, after the stream's one entry; the writer reaches Redis directly. */
  const followingThroughProxy = async () => {
    const proxy = await TcpProxy.start(redisUrl);
    proxies.push(proxy);
    const reader = await open({ url: proxy.url, onError: () => undefined });
    const writer = await open();
    const id = randomUUID();
    const first = await writer.append(id, 'before');
    const follower = {};
    await reader.read(id, first, { blockMs: 30, follower });
    return { proxy, reader, writer, id, first, follower };
  };

  it('reads again after its subscriber reconnected: an append during the outage is not missed', async () => {
    const { proxy, reader, writer, id, first, follower } = await followingThroughProxy();
    await reader.read(id, first, { blockMs: 30, follower });

    await proxy.cut();
    await writer.append(id, 'during the outage');
    await sleep(200);
    await proxy.restore();
    // Reconnected before the next read: no read was waiting to be told of the gap.
    await eventually('the reader reconnected', () =>
      reader.ping().then(
        () => true,
        () => false,
      ),
    );
    const read = await reader.read(id, first, { blockMs: 1000, follower });
    const got = read.entries.map((entry) => entry.data);
    expect(got).toEqual(['during the outage']);
  });

  it('does not wait out a long block on a connection that was lost: it looks again within a liveness interval', async () => {
    const { proxy, reader, id, first, follower } = await followingThroughProxy();
    // A relay waits this long on a quiet stream, trusting its nudges to wake it.
    const waiting = reader.read(id, first, { blockMs: 60_000, follower }).then(
      () => 'returned',
      () => 'failed',
    );
    await sleep(100);
    const cutAt = performance.now();
    await proxy.cut();
    // Woken by the subscriber's liveness check (every 5 s), it reads, and the read fails: Redis is out of reach.
    expect(await waiting).toBe('failed');
    expect(performance.now() - cutAt).toBeLessThan(7000);
  }, 15_000);

  it('reads an idle stream again after quietReadMaxMs, so a stream lost without a word is seen to be gone', async () => {
    const stream = await open({ quietReadMaxMs: 300 });
    const id = randomUUID();
    const first = await stream.append(id, 'a');
    const follower = {};
    await stream.read(id, first, { blockMs: 30, follower });
    // Deleted behind the bus's back (evicted, flushed): no nudge on its channel.
    await raw.del(key(id));
    await eventually('the stream seen absent', async () => {
      const read = await stream.read(id, first, { blockMs: 100, follower });
      return read.absent === true;
    });
  });
});
