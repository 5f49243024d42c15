import { MemoryRunStream, type RunStream, STREAM_START } from '@fed/bus';
import { contentChunk, finalChunk, roleChunk } from '@fed/contracts';
import { type FollowOptions, type RunEvent, followRun } from './follow-run';

/** A run stream whose reads are scripted by the test around a real in-process one. */
function scripted(inner: RunStream, read: RunStream['read']): RunStream {
  const stream = Object.create(inner) as RunStream;
  stream.read = read;
  return stream;
}

describe('followRun when the run stream breaks under it (A2A and MCP report a failed turn)', () => {
  let stream: MemoryRunStream;
  let offsets: string[];
  const runId = 'run-1';

  beforeEach(async () => {
    stream = new MemoryRunStream();
    offsets = [
      await stream.append(runId, JSON.stringify(roleChunk('m', 'c', runId))),
      await stream.append(runId, JSON.stringify(contentChunk('m', { content: 'Hello' }))),
    ];
  });

  afterEach(() => stream.close());

  async function collect(
    source: RunStream,
    options: Partial<FollowOptions> = {},
  ): Promise<Extract<RunEvent, { kind: 'chunk' }>[]> {
    const events: RunEvent[] = [];
    const signal = new AbortController().signal;
    for await (const event of followRun(source, runId, { after: STREAM_START, quietMs: 50, signal, ...options })) {
      events.push(event);
    }
    return events.filter((event): event is Extract<RunEvent, { kind: 'chunk' }> => event.kind === 'chunk');
  }

  function expectLostLast(chunks: Extract<RunEvent, { kind: 'chunk' }>[]): void {
    const last = chunks[chunks.length - 1];
    expect(last?.chunk).toMatchObject({
      model: 'm',
      choices: [{ finishReason: 'error', status: 'unfinished' }],
      error: { code: 'stream_lost' },
    });
    // Its offset follows the last one read and is none of the log's.
    expect(offsets).not.toContain(last?.offset);
  }

  it('ends with a stream_lost error chunk when the stream is gone', async () => {
    let reads = 0;
    const vanishing = scripted(stream, async (...args) =>
      ++reads === 1 ? stream.read(...args) : { entries: [], ended: false, absent: true },
    );
    const chunks = await collect(vanishing);
    expect(chunks).toHaveLength(3);
    expectLostLast(chunks);
  });

  it('ends with a stream_lost error chunk once the stream stayed out of reach past the limit', async () => {
    let reads = 0;
    const unreachable = scripted(stream, (...args) =>
      ++reads === 1 ? stream.read(...args) : Promise.reject(new Error('Connection is closed.')),
    );
    const chunks = await collect(unreachable, { unreachableLimitMs: 400 });
    expect(chunks).toHaveLength(3);
    expectLostLast(chunks);
  });

  it('ends with a stream_lost error chunk when the log ended without a final chunk', async () => {
    await stream.end(runId);
    expectLostLast(await collect(stream));
  });

  it('adds nothing to a log that ended with its final chunk', async () => {
    await stream.append(runId, JSON.stringify(finalChunk('m', 'stop')));
    await stream.end(runId);
    const chunks = await collect(stream);
    expect(chunks.map((event) => event.chunk.choices[0].finishReason)).toEqual([null, null, 'stop']);
  });
});
