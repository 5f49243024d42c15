import { MemoryRunStream, STREAM_START } from '@fed/bus';
import { type ChatCompletionChunk, finalChunk } from '@fed/contracts';
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

describe('chunk writer', () => {
  let stream: MemoryRunStream;

  beforeEach(() => {
    stream = new MemoryRunStream();
  });

  afterEach(() => stream.close());

  async function written(): Promise<ChatCompletionChunk[]> {
    const read = await stream.read('run', STREAM_START, { count: 1000 });
    return read.entries.map((entry) => JSON.parse(entry.data) as ChatCompletionChunk);
  }

  const writer = (coalesceMs: number, hooks: Partial<{ onEnded(): void; onFailed(error: unknown): void }> = {}) =>
    new ChunkWriter(stream, 'run', {
      model: 'federation-agent',
      coalesceMs,
      onEnded: hooks.onEnded ?? (() => undefined),
      onFailed: hooks.onFailed ?? (() => undefined),
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
});
