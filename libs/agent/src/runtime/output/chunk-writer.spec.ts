import { MemoryRunStream, type RunStream, StreamLostError } from '@fed/bus';
import { type ChatCompletionChunk, errorChunk, finalChunk } from '@fed/contracts';
import { ChunkWriter } from './chunk-writer';

const task = {
  messageId: 'm',
  conversationId: 'c',
  actionType: 'tool_start',
  status: 'in_progress' as const,
  timestamp: 0,
  createdAt: '1970-01-01T00:00:00.000Z',
  updatedAt: '1970-01-01T00:00:00.000Z',
};

/** Every timer jest can fake but the performance clock. */
const realTimers = [
  'Date',
  'hrtime',
  'nextTick',
  'queueMicrotask',
  'setImmediate',
  'clearImmediate',
  'setTimeout',
  'clearTimeout',
  'setInterval',
  'clearInterval',
  'requestAnimationFrame',
  'cancelAnimationFrame',
  'requestIdleCallback',
  'cancelIdleCallback',
] as const;

describe('chunk writer', () => {
  let stream: MemoryRunStream;
  /** The offset of the role chunk the chat service opened the stream with (the writer only appends to it). */
  let opened: string;

  beforeEach(async () => {
    stream = new MemoryRunStream();
    opened = await stream.append('run', '{"role":"assistant"}');
  });

  afterEach(() => stream.close());

  async function written(): Promise<ChatCompletionChunk[]> {
    const read = await stream.read('run', opened, { count: 1000 });
    return read.entries.map((entry) => JSON.parse(entry.data) as ChatCompletionChunk);
  }

  const writer = (coalesceMs: number, hooks: Partial<{ onEnded(): void; onFailed(error: unknown): void }> = {}) =>
    new ChunkWriter(stream, 'run', {
      model: 'federation-agent',
      coalesceMs,
      onEnded: hooks.onEnded ?? (() => undefined),
      onFailed: hooks.onFailed ?? (() => undefined),
    });

  it('writes nothing more once its runtime no longer holds the job, not even the final chunk, and says so once', async () => {
    let holds = true;
    let lost = 0;
    const chunks = new ChunkWriter(stream, 'run', {
      model: 'federation-agent',
      coalesceMs: 1000,
      onEnded: () => undefined,
      onFailed: () => undefined,
      holdsJob: () => holds,
      onJobLost: () => void lost++,
    });
    chunks.write('mine');
    await chunks.drain();
    chunks.write('held back');
    holds = false;
    chunks.write(' and more');
    chunks.send({ tasks: [task] });
    chunks.sendFinal(finalChunk('federation-agent', 'stop'));
    await chunks.drain();
    expect((await written()).map((chunk) => chunk.choices[0].delta.content)).toEqual(['mine']);
    expect(lost).toBe(1);
  });

  /** A hold the test settles: each append asks it, and waits while it is unconfirmed. */
  function unconfirmedHold() {
    let settle: ((held: boolean) => void) | undefined;
    let answer: boolean | undefined;
    return {
      holdsJob: () =>
        answer !== undefined ? answer : new Promise<boolean>((resolve) => (settle = (held) => resolve(held))),
      settle(held: boolean) {
        answer = held;
        settle?.(held);
      },
    };
  }

  it('waits while its hold on the job is unconfirmed, then writes every chunk once and in order when it is confirmed', async () => {
    const hold = unconfirmedHold();
    const chunks = new ChunkWriter(stream, 'run', {
      model: 'federation-agent',
      coalesceMs: 0,
      onEnded: () => undefined,
      onFailed: () => undefined,
      holdsJob: hold.holdsJob,
      onJobLost: () => undefined,
    });
    for (const piece of ['a', 'b', 'c']) chunks.write(piece);
    const drained = chunks.drain();
    await new Promise((resolve) => setImmediate(resolve));
    expect(await written()).toEqual([]);
    hold.settle(true);
    await drained;
    expect((await written()).map((chunk) => chunk.choices[0].delta.content)).toEqual(['a', 'b', 'c']);
  });

  it('writes none of the waiting chunks when the hold turns out lost, and says so once', async () => {
    const hold = unconfirmedHold();
    let lost = 0;
    const chunks = new ChunkWriter(stream, 'run', {
      model: 'federation-agent',
      coalesceMs: 0,
      onEnded: () => undefined,
      onFailed: () => undefined,
      holdsJob: hold.holdsJob,
      onJobLost: () => void lost++,
    });
    for (const piece of ['a', 'b']) chunks.write(piece);
    chunks.sendFinal(finalChunk('federation-agent', 'stop'));
    const drained = chunks.drain();
    hold.settle(false);
    await drained;
    expect(await written()).toEqual([]);
    expect(lost).toBe(1);
  });

  it('without coalescing appends each piece as its own chunk, in order', async () => {
    const chunks = writer(0);
    for (const piece of ['a', 'b', 'c']) chunks.write(piece);
    await chunks.drain();
    expect((await written()).map((chunk) => chunk.choices[0].delta.content)).toEqual(['a', 'b', 'c']);
  });

  it('appends pieces arriving within the coalescing window as one chunk', async () => {
    const chunks = writer(30);
    for (let i = 0; i < 20; i++) chunks.write(`${i},`);
    await new Promise((resolve) => setTimeout(resolve, 60));
    chunks.write('late');
    await chunks.drain();
    const contents = (await written()).map((chunk) => chunk.choices[0].delta.content);
    expect(contents).toEqual([Array.from({ length: 20 }, (_, i) => `${i},`).join(''), 'late']);
    expect(chunks.text).toBe(contents.join(''));
  });

  it('sends a piece that comes after a quiet window at once, with what came in the same tick, and batches those after it', async () => {
    const chunks = writer(60_000);
    const contents = async () => (await written()).map((chunk) => chunk.choices[0].delta.content);
    const until = async (count: number) => {
      for (let polls = 0; (await written()).length < count && polls < 200; polls++)
        await new Promise((resolve) => setTimeout(resolve, 5));
    };
    chunks.write('first ');
    chunks.write('same tick ');
    await until(1);
    expect(await contents()).toEqual(['first same tick ']);
    // Within the window (a minute here): held back until it ends or something else is sent.
    chunks.write('a');
    await new Promise((resolve) => setImmediate(resolve));
    chunks.write('b');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await contents()).toEqual(['first same tick ']);
    await chunks.drain();
    expect(await contents()).toEqual(['first same tick ', 'ab']);
    expect(chunks.text).toBe('first same tick ab');
  });

  it('opens a new window on the leading edge once the last text is older than the window', async () => {
    // Only the clock the writer reads is fake: a minute passes at once, timers stay real.
    jest.useFakeTimers({ now: 0, doNotFake: [...realTimers] });
    try {
      const chunks = writer(60_000);
      chunks.write('one');
      await chunks.drain();
      chunks.write('held');
      jest.advanceTimersByTime(61_000);
      await chunks.drain();
      jest.advanceTimersByTime(61_000);
      chunks.write('two');
      // The window (a minute) has not passed in real time: only a leading-edge send explains it.
      for (let polls = 0; (await written()).length < 3 && polls < 200; polls++)
        await new Promise((resolve) => setTimeout(resolve, 5));
      expect((await written()).map((chunk) => chunk.choices[0].delta.content)).toEqual(['one', 'held', 'two']);
    } finally {
      jest.useRealTimers();
    }
  });

  it('drops a leading piece not yet sent when the writer is discarded', async () => {
    const chunks = writer(30);
    chunks.write('never');
    chunks.discard();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await chunks.drain();
    expect(await written()).toEqual([]);
  });

  it('sends waiting text before a task chunk and the final chunk', async () => {
    const chunks = writer(1000);
    chunks.write('before');
    chunks.send({ tasks: [task] });
    chunks.write('after');
    chunks.sendFinal(finalChunk('federation-agent', 'stop'));
    await chunks.drain();
    const deltas = (await written()).map((chunk) => chunk.choices[0]);
    expect(
      deltas.map((choice) => choice.delta.content ?? choice.delta.tasks?.[0].actionType ?? choice.finishReason),
    ).toEqual(['before', 'tool_start', 'after', 'stop']);
  });

  it('stops writing, without throwing, once someone else ended the stream', async () => {
    let ended = 0;
    const chunks = writer(0, { onEnded: () => ended++ });
    chunks.write('one');
    await chunks.drain();
    await stream.end('run');
    chunks.write('two');
    chunks.write('three');
    chunks.sendFinal(finalChunk('federation-agent', 'stop'));
    await chunks.drain();
    expect(ended).toBe(1);
    expect((await written()).map((chunk) => chunk.choices[0].delta.content)).toEqual(['one']);
  });

  it('never creates anew a stream that is gone (lost with Redis): it writes nothing more and reports it broken once', async () => {
    const failures: unknown[] = [];
    const chunks = new ChunkWriter(stream, 'gone', {
      model: 'federation-agent',
      coalesceMs: 0,
      onEnded: () => undefined,
      onFailed: (error) => failures.push(error),
    });
    chunks.write('one');
    chunks.write('two');
    chunks.sendFinal(finalChunk('federation-agent', 'stop'));
    await chunks.drain();
    expect(failures).toHaveLength(1);
    expect(failures[0]).toBeInstanceOf(StreamLostError);
    expect(chunks.broken).toBe(true);
    expect(await stream.state('gone')).toBe('absent');
  });

  it('drops text once an append failed, but retries the final chunk until the bus is back', async () => {
    let outOfReach = false;
    const flaky: RunStream = Object.create(stream) as RunStream;
    flaky.append = (...args: Parameters<RunStream['append']>) =>
      outOfReach ? Promise.reject(new Error('Connection is closed.')) : stream.append(...args);
    let failed = 0;
    const chunks = new ChunkWriter(flaky, 'run', {
      model: 'federation-agent',
      coalesceMs: 0,
      onEnded: () => undefined,
      onFailed: () => failed++,
      finalRetryMs: 5000,
    });
    chunks.write('shown');
    await chunks.drain();
    outOfReach = true;
    chunks.write('lost');
    chunks.sendFinal(errorChunk('federation-agent', 'stream_lost', 'gone'));
    setTimeout(() => (outOfReach = false), 600);
    await chunks.drain();
    expect(failed).toBe(1);
    expect(chunks.broken).toBe(true);
    const choices = (await written()).map((chunk) => chunk.choices[0]);
    expect(choices.map((choice) => choice.delta.content ?? choice.finishReason)).toEqual(['shown', 'error']);
  });
});
