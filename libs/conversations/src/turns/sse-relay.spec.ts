import { MemoryRunStream, RedisRunStream, type RunStream, STREAM_START } from '@fed/bus';
import { testServiceUrls } from '@fed/config';
import { type ChatCompletionChunk, contentChunk, finalChunk, roleChunk } from '@fed/contracts';
import { heartbeatsEvery } from '@fed/server';
import { deleteRedisKeys } from '@fed/testing';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { type AddressInfo } from 'node:net';
import { type RelayOptions, relayRun } from './sse-relay';

const MODEL = 'federation-agent';

/** What a client of the relay receives: each event's id and data, in order, and the comments. */
interface Received {
  events: { id?: string; data: string }[];
  comments: string[];
}

/** Serves one relay over real HTTP and reads its whole body, as a client would. */
async function relayed(options: Omit<RelayOptions, 'shutdown' | 'model'>): Promise<Received> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    void relayRun(res, { ...options, model: MODEL, shutdown: new AbortController().signal });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    const received: Received = { events: [], comments: [] };
    for (const block of (await res.text()).split('\n\n').filter(Boolean)) {
      const lines = block.split('\n');
      const comment = lines.find((line) => line.startsWith(':'));
      if (comment) received.comments.push(comment.slice(1).trim());
      const data = lines.find((line) => line.startsWith('data: '))?.slice(6);
      const id = lines.find((line) => line.startsWith('id: '))?.slice(4);
      if (data !== undefined) received.events.push(id === undefined ? { data } : { id, data });
    }
    return received;
  } finally {
    server.close();
  }
}

const chunkOf = (data: string) => JSON.parse(data) as ChatCompletionChunk & { error?: { code: string } };

function expectStreamLostEnd(received: Received): void {
  const [last, done] = received.events.slice(-2);
  expect(done).toEqual({ data: '[DONE]' });
  // No `id:`: a Last-Event-ID stays on the last real entry.
  expect(last?.id).toBeUndefined();
  expect(chunkOf(last?.data as string)).toMatchObject({
    choices: [{ finishReason: 'error', status: 'unfinished' }],
    error: { code: 'stream_lost' },
  });
}

/** A run stream whose reads are scripted by the test around a real in-process one. */
function scripted(inner: RunStream, read: RunStream['read']): RunStream {
  const stream = Object.create(inner) as RunStream;
  stream.read = read;
  return stream;
}

describe('the chat relay when the run stream breaks under it', () => {
  let stream: MemoryRunStream;
  const runId = 'run-1';

  beforeEach(async () => {
    stream = new MemoryRunStream();
    await stream.append(runId, JSON.stringify(roleChunk(MODEL, 'c', runId)));
    await stream.append(runId, JSON.stringify(contentChunk(MODEL, { content: 'Hello' })));
  });

  afterEach(() => stream.close());

  it('relays a whole stream and ends with its own final chunk and [DONE]', async () => {
    await stream.append(runId, JSON.stringify(finalChunk(MODEL, 'stop')));
    await stream.end(runId);
    const received = await relayed({ runStream: stream, runId, after: STREAM_START, heartbeatMs: 1000 });
    expect(
      received.events.map((event) => (event.data === '[DONE]' ? 'done' : chunkOf(event.data).choices[0].finishReason)),
    ).toEqual([null, null, 'stop', 'done']);
  });

  it('ends with a stream_lost error chunk, never a bare [DONE], when the stream is gone (Redis restarted empty)', async () => {
    let reads = 0;
    const vanishing = scripted(stream, async (...args) =>
      ++reads === 1 ? stream.read(...args) : { entries: [], ended: false, absent: true },
    );
    const received = await relayed({ runStream: vanishing, runId, after: STREAM_START, heartbeatMs: 1000 });
    expect(received.events.slice(0, 2).map((event) => event.id)).toEqual([expect.any(String), expect.any(String)]);
    expectStreamLostEnd(received);
    expect(received.events).toHaveLength(4);
  });

  it('keeps the client with heartbeats while the stream is out of reach, then says it was lost', async () => {
    const unreachable = scripted(stream, () => Promise.reject(new Error('Connection is closed.')));
    const received = await relayed({
      runStream: unreachable,
      runId,
      after: STREAM_START,
      heartbeatMs: 100,
      unreachableLimitMs: 600,
    });
    expect(received.comments.filter((comment) => comment === 'heartbeat').length).toBeGreaterThanOrEqual(2);
    expect(received.events).toHaveLength(2);
    expectStreamLostEnd(received);
  });

  it('rides out a short outage and relays the rest of the stream once it is back', async () => {
    let outOfReach = true;
    setTimeout(() => (outOfReach = false), 400);
    const flaky = scripted(stream, (...args) =>
      outOfReach ? Promise.reject(new Error('Connection is closed.')) : stream.read(...args),
    );
    await stream.append(runId, JSON.stringify(finalChunk(MODEL, 'stop')));
    await stream.end(runId);
    const received = await relayed({ runStream: flaky, runId, after: STREAM_START, heartbeatMs: 100 });
    expect(
      received.events.map((event) => event.data === '[DONE]' || chunkOf(event.data).choices[0].finishReason),
    ).toEqual([null, null, 'stop', true]);
  });

  it('adds the stream_lost error chunk to a stream that ended without a final chunk', async () => {
    await stream.end(runId);
    expectStreamLostEnd(await relayed({ runStream: stream, runId, after: STREAM_START, heartbeatMs: 1000 }));
  });

  it('sends a bare [DONE] to a reconnect whose Last-Event-ID is the final chunk (it saw the end)', async () => {
    const final = await stream.append(runId, JSON.stringify(finalChunk(MODEL, 'stop')));
    await stream.end(runId);
    const received = await relayed({ runStream: stream, runId, after: final, heartbeatMs: 1000 });
    expect(received.events).toEqual([{ data: '[DONE]' }]);
  });
});

describe('the chat relay over Redis when the stream is lost with its data', () => {
  const keyPrefix = `test:${randomUUID().slice(0, 8)}:`;
  let stream: RedisRunStream;

  beforeAll(() => {
    stream = new RedisRunStream({ url: testServiceUrls().redisUrl, keyPrefix });
  });

  afterAll(async () => {
    await stream.close();
    await deleteRedisKeys(testServiceUrls().redisUrl, keyPrefix);
  });

  it('ends the client stream with stream_lost once the stream key is gone, and a late append does not bring it back', async () => {
    const runId = randomUUID();
    await stream.append(runId, JSON.stringify(roleChunk(MODEL, 'c', runId)));
    await stream.append(runId, JSON.stringify(contentChunk(MODEL, { content: 'Hello' })));
    const receiving = relayed({ runStream: stream, runId, after: STREAM_START, heartbeatMs: 200 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    // What a Redis restarted without persistence leaves: no key at all.
    await deleteRedisKeys(testServiceUrls().redisUrl, `${keyPrefix}run-stream:${runId}`);
    await expect(
      stream.append(runId, JSON.stringify(contentChunk(MODEL, { content: ' world' })), undefined, { existing: true }),
    ).rejects.toMatchObject({ name: 'StreamLostError' });
    const received = await receiving;
    expect(received.events.map((event) => event.id !== undefined)).toEqual([true, true, false, false]);
    expectStreamLostEnd(received);
    expect(await stream.state(runId)).toBe('absent');
  });
});

describe("the chat relay's heartbeats", () => {
  const runId = 'run-quiet';
  let stream: MemoryRunStream;

  beforeEach(async () => {
    stream = new MemoryRunStream();
    await stream.append(runId, JSON.stringify(roleChunk(MODEL, 'c', runId)));
  });

  afterEach(() => stream.close());

  /** Serves one relay over real HTTP and keeps its client `forMs`, then goes away; what came, with arrival times. */
  async function listened(runStream: RunStream, heartbeatMs: number, forMs: number, meanwhile?: () => Promise<void>) {
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      void relayRun(res, {
        runStream,
        runId,
        after: STREAM_START,
        heartbeatMs,
        model: MODEL,
        shutdown: new AbortController().signal,
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const started = performance.now();
    const blocks: { at: number; text: string }[] = [];
    const request = http.get(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    request.on('response', (response) => {
      let buffered = '';
      response.setEncoding('utf8');
      response.on('data', (text: string) => {
        buffered += text;
        const parts = buffered.split('\n\n');
        buffered = parts.pop() ?? '';
        for (const part of parts) blocks.push({ at: performance.now() - started, text: part });
      });
    });
    request.on('error', () => undefined);
    await meanwhile?.();
    await new Promise((resolve) => setTimeout(resolve, forMs - (performance.now() - started)));
    request.destroy();
    await new Promise((resolve) => server.close(resolve));
    return blocks;
  }

  /** The run stream, counting the relay's reads. */
  function counted(inner: RunStream) {
    const reads = { count: 0 };
    return {
      reads,
      runStream: scripted(inner, (...args) => {
        reads.count++;
        return inner.read(...args);
      }),
    };
  }

  it('sends an idle stream a heartbeat about every interval, without reading the run stream for them', async () => {
    const { reads, runStream } = counted(stream);
    const blocks = await listened(runStream, 100, 1050);
    const beats = blocks.filter((block) => block.text === ': heartbeat').map((block) => block.at);
    // 100 ms of silence each, seen by a table that looks every 20 ms: 8 to 10 in a second (fewer on a busy machine).
    expect(beats.length).toBeGreaterThanOrEqual(5);
    expect(beats.length).toBeLessThanOrEqual(10);
    // Never more often than the interval (arrivals jitter a little around it).
    for (let k = 1; k < beats.length; k++) expect(beats[k] - beats[k - 1]).toBeGreaterThanOrEqual(60);
    // The role chunk's read, then one wait for data: heartbeats are not reads.
    expect(reads.count).toBeLessThanOrEqual(2);
    // The client left: the relay's record is gone, and with the last one the table's timer.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(heartbeatsEvery(100).size).toBe(0);
  });

  it('sends none while pieces come more often than the interval, and starts again when they stop', async () => {
    const blocks = await listened(stream, 150, 900, async () => {
      for (let n = 0; n < 8; n++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        await stream.append(runId, JSON.stringify(contentChunk(MODEL, { content: String(n) })));
      }
    });
    const lastPiece = Math.max(...blocks.filter((block) => block.text.startsWith('id: ')).map((block) => block.at));
    const beats = blocks.filter((block) => block.text === ': heartbeat').map((block) => block.at);
    expect(blocks.filter((block) => block.text.startsWith('id: '))).toHaveLength(9);
    expect(beats.every((at) => at >= lastPiece + 100)).toBe(true);
    expect(beats.length).toBeGreaterThanOrEqual(1);
  });
});
