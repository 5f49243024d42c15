import { MemoryRunStream, STREAM_START } from '@fed/bus';
import { contentChunk, finalChunk, roleChunk } from '@fed/contracts';
import { type RunEvent, followRun } from './follow-run';

describe('followRun', () => {
  let stream: MemoryRunStream;
  beforeEach(() => {
    stream = new MemoryRunStream();
  });
  afterEach(() => stream.close());

  async function collect(after: string, quietMs = 1000, signal = new AbortController().signal): Promise<RunEvent[]> {
    const events: RunEvent[] = [];
    for await (const event of followRun(stream, 'run-1', { after, quietMs, signal })) events.push(event);
    return events;
  }

  it('yields every chunk with its offset in order and returns at the end of the log', async () => {
    const first = await stream.append('run-1', JSON.stringify(roleChunk('m', 'c', 'run-1')));
    const second = await stream.append('run-1', JSON.stringify(contentChunk('m', { content: 'Hello' })));
    const later = collect(STREAM_START);
    await stream.append('run-1', JSON.stringify(finalChunk('m', 'stop')));
    await stream.end('run-1');
    const events = await later;
    expect(events.map((event) => (event.kind === 'chunk' ? event.offset : 'quiet')).slice(0, 2)).toEqual([
      first,
      second,
    ]);
    expect(events).toHaveLength(3);
    expect(events[2]).toMatchObject({ kind: 'chunk', chunk: { choices: [{ finishReason: 'stop' }] } });
  });

  it('resumes strictly after the offset given, skips entries that are not chunks, and ticks when quiet', async () => {
    const first = await stream.append('run-1', JSON.stringify(roleChunk('m', 'c', 'run-1')));
    await stream.append('run-1', 'not json');
    const events = collect(first, 30);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await stream.append('run-1', JSON.stringify(finalChunk('m', 'stop')));
    await stream.end('run-1');
    const seen = await events;
    expect(seen.filter((event) => event.kind === 'quiet').length).toBeGreaterThanOrEqual(1);
    expect(seen.filter((event) => event.kind === 'chunk')).toHaveLength(1);
  });

  it('stops without the rest when aborted', async () => {
    await stream.append('run-1', JSON.stringify(roleChunk('m', 'c', 'run-1')));
    const abort = new AbortController();
    const events: RunEvent[] = [];
    for await (const event of followRun(stream, 'run-1', {
      after: STREAM_START,
      quietMs: 10_000,
      signal: abort.signal,
    })) {
      events.push(event);
      abort.abort();
    }
    expect(events).toHaveLength(1);
  });
});
