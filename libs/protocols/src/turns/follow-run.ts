import { type RunStream } from '@fed/bus';
import { type ChatCompletionChunk } from '@fed/contracts';

/** What following a run yields: its chunks in order, each with its offset, and a tick after a quiet spell. */
export type RunEvent = { kind: 'chunk'; offset: string; chunk: ChatCompletionChunk } | { kind: 'quiet' };

export interface FollowOptions {
  /** Yield entries strictly after this offset (`STREAM_START`: everything). */
  after: string;
  /** A `quiet` event after this long without a chunk (keep-alives of the caller). */
  quietMs: number;
  /** Ends the following early (client gone, instance shutting down); the turn goes on. */
  signal: AbortSignal;
}

/**
 * A run's chunk log as an async sequence, for the protocol front doors (A2A, MCP), which translate the
 * chat stream's chunks (docs/chat.md "Stream entries") into their own events. Returns when the log has
 * ended and everything in it was yielded, or when `signal` aborts (then without the rest). An entry that
 * is not a chunk (it cannot be: the runtime and the starter write them) is skipped, not thrown.
 */
export async function* followRun(
  runStream: RunStream,
  runId: string,
  options: FollowOptions,
): AsyncGenerator<RunEvent, void, undefined> {
  const { signal, quietMs } = options;
  let cursor = options.after;
  let lastEvent = Date.now();
  while (!signal.aborted) {
    const read = await runStream.read(runId, cursor, {
      blockMs: Math.max(1, quietMs - (Date.now() - lastEvent)),
      count: 100,
      signal,
    });
    if (signal.aborted) return;
    for (const entry of read.entries) {
      cursor = entry.offset;
      const chunk = parseChunk(entry.data);
      if (chunk) yield { kind: 'chunk', offset: entry.offset, chunk };
    }
    if (read.entries.length > 0) lastEvent = Date.now();
    if (read.ended) return;
    if (Date.now() - lastEvent >= quietMs) {
      lastEvent = Date.now();
      yield { kind: 'quiet' };
    }
  }
}

function parseChunk(data: string): ChatCompletionChunk | undefined {
  try {
    const value = JSON.parse(data) as ChatCompletionChunk | null;
    return value && Array.isArray(value.choices) && value.choices.length === 1 ? value : undefined;
  } catch {
    return undefined;
  }
}
