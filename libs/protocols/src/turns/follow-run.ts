import { type RunStream, STREAM_START, type StreamRead } from '@fed/bus';
import { type ChatCompletionChunk, isFinalChunkData, streamLostChunk } from '@fed/contracts';
import { RUN_STREAM_RETRY_MS, RUN_STREAM_UNREACHABLE_LIMIT_MS, endedWithoutFinalChunk } from '@fed/conversations';
import { RunStreamTrace } from '@fed/observability';
import { setTimeout as sleep } from 'node:timers/promises';

/** What following a run yields: its chunks in order, each with its offset, and a tick after a quiet spell. */
export type RunEvent = { kind: 'chunk'; offset: string; chunk: ChatCompletionChunk } | { kind: 'quiet' };

export interface FollowOptions {
  /** Yield entries strictly after this offset (`STREAM_START`: everything). */
  after: string;
  /** A `quiet` event after this long without a chunk (keep-alives of the caller). */
  quietMs: number;
  /** Ends the following early (client gone, instance shutting down); the turn goes on. */
  signal: AbortSignal;
  unreachableLimitMs?: number;
}

/**
 * A run's chunk log for the protocol front doors, until it ends or `signal` aborts. A broken log ends with a
 * `stream_lost` chunk of its own, as the chat relay does, so no answer silently stops.
 */
export async function* followRun(
  runStream: RunStream,
  runId: string,
  options: FollowOptions,
): AsyncGenerator<RunEvent, void, undefined> {
  const { signal, quietMs } = options;
  let cursor = options.after;
  let lastEvent = Date.now();
  // This reader's identity across reads: an idle stream is then waited on without a read per wait.
  const follower = {};
  // A resubscribe joins the turn's trace (stored with the stream's first entry).
  const trace = new RunStreamTrace('protocols.stream.follow', { 'fed.run_id': runId });
  try {
    if (cursor !== STREAM_START) await trace.lookUp(() => runStream.traceOf(runId));
    const unreachableLimitMs = options.unreachableLimitMs ?? RUN_STREAM_UNREACHABLE_LIMIT_MS;
    let unreachableSince: number | undefined;
    let lastWasFinal: boolean | undefined;
    let model = '';
    const lost = (): RunEvent => ({ kind: 'chunk', offset: offsetAfter(cursor), chunk: streamLostChunk(model) });
    while (!signal.aborted) {
      let read: StreamRead;
      try {
        read = await trace.within(() =>
          runStream.read(runId, cursor, {
            blockMs: Math.max(1, quietMs - (Date.now() - lastEvent)),
            follower,
            count: 100,
            signal,
          }),
        );
        unreachableSince = undefined;
      } catch {
        // Redis out of reach: keep following (with quiet ticks) while it may come back with the log intact.
        unreachableSince ??= Date.now();
        if (Date.now() - unreachableSince >= unreachableLimitMs) {
          yield lost();
          return;
        }
        if (Date.now() - lastEvent >= quietMs) {
          lastEvent = Date.now();
          yield { kind: 'quiet' };
        }
        await sleep(RUN_STREAM_RETRY_MS, undefined, { signal }).catch(() => undefined);
        continue;
      }
      if (signal.aborted) return;
      if (read.absent) {
        yield lost();
        return;
      }
      if (read.entries.length > 0) trace.see(read.entries[0].trace);
      if (read.entries.length > 0) lastWasFinal = isFinalChunkData(read.entries[read.entries.length - 1].data);
      for (const entry of read.entries) {
        cursor = entry.offset;
        const chunk = parseChunk(entry.data);
        if (chunk) model = chunk.model;
        if (chunk) yield { kind: 'chunk', offset: entry.offset, chunk };
      }
      if (read.entries.length > 0) lastEvent = Date.now();
      if (read.ended) {
        if (endedWithoutFinalChunk(lastWasFinal, options.after)) yield lost();
        return;
      }
      if (Date.now() - lastEvent >= quietMs) {
        lastEvent = Date.now();
        yield { kind: 'quiet' };
      }
    }
  } finally {
    trace.end();
  }
}

/** An offset right after `offset` that no entry of the (gone) log has: the id of the lost chunk's events. */
function offsetAfter(offset: string): string {
  const [ms = '0', seq = '0'] = offset.split('-');
  return `${ms}-${BigInt(seq) + 1n}`;
}

function parseChunk(data: string): ChatCompletionChunk | undefined {
  try {
    const value = JSON.parse(data) as ChatCompletionChunk | null;
    return value && Array.isArray(value.choices) && value.choices.length === 1 ? value : undefined;
  } catch {
    return undefined;
  }
}
