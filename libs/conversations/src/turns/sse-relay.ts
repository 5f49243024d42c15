import { type RunStream, STREAM_START, type StreamRead } from '@fed/bus';
import {
  CHAT_STREAM_HEADERS,
  SSE_CONNECTED,
  SSE_DONE,
  SSE_HEADERS,
  SSE_HEARTBEAT,
  isFinalChunkData,
  streamLostChunk,
} from '@fed/contracts';
import { RunStreamTrace } from '@fed/observability';
import { heartbeatsEvery, responseHeartbeat } from '@fed/server';
import { type ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

/** How long a run stream may be unreachable before `stream_lost`; a turn that cannot append is stopped sooner. */
export const RUN_STREAM_UNREACHABLE_LIMIT_MS = 10_000;
export const RUN_STREAM_RETRY_MS = 250;
/** Only bounds the relay's loop: data wakes the read, and heartbeats come from the process's table. */
export const RELAY_WAIT_MS = 60_000;

/** Whether a reader at the end missed the final chunk (unknowable if it started past an offset and saw nothing). */
export function endedWithoutFinalChunk(lastWasFinal: boolean | undefined, after: string): boolean {
  return lastWasFinal === undefined ? after === STREAM_START : !lastWasFinal;
}

export interface RelayOptions {
  runStream: RunStream;
  runId: string;
  /** Read entries strictly after this offset (`STREAM_START`: from the beginning). */
  after: string;
  heartbeatMs: number;
  /** Aborted when the instance shuts down: the stream then closes without `[DONE]`, to be rejoined elsewhere. */
  shutdown: AbortSignal;
  /** The `model` of the `stream_lost` chunk (the chat API's model name). */
  model: string;
  unreachableLimitMs?: number;
  waitMs?: number;
}

export function writeStreamHead(response: ServerResponse, conversationId: string, messageId: string): void {
  response.writeHead(200, {
    ...SSE_HEADERS,
    [CHAT_STREAM_HEADERS.conversationId]: conversationId,
    [CHAT_STREAM_HEADERS.messageId]: messageId,
  });
  response.write(SSE_CONNECTED);
}

/**
 * Relays a run's chunk log to one client as SSE, with heartbeats and a final `[DONE]`; leaving or shutdown ends it
 * without `[DONE]` (the turn goes on), and `drain` bounds a slow client's backlog. A broken log ends in a `stream_lost`
 * chunk without `id:`, so `Last-Event-ID` stays on the last real entry (docs/chat.md, "When the stream breaks").
 */
export async function relayRun(response: ServerResponse, options: RelayOptions): Promise<void> {
  const { runStream, runId } = options;
  const stop = new AbortController();
  const onEnd = () => stop.abort();
  response.once('close', onEnd);
  options.shutdown.addEventListener('abort', onEnd, { once: true });
  if (options.shutdown.aborted) stop.abort();
  // Heartbeats come from the shared table; this relay only wakes for data.
  const heartbeats = heartbeatsEvery(options.heartbeatMs);
  const beat = heartbeats.add(responseHeartbeat(response, SSE_HEARTBEAT));
  const write = async (text: string) => {
    await writeOrWait(response, text, stop.signal);
    beat.lastWrite = Date.now();
  };
  let cursor = options.after;
  // A stable reader identity lets an idle stream be waited on without a read per wait.
  const follower = {};
  // A reconnect joins the turn's trace (stored with the stream's first entry).
  const trace = new RunStreamTrace('chat.stream.relay', { 'fed.run_id': runId });
  try {
    if (cursor !== STREAM_START) await trace.lookUp(() => runStream.traceOf(runId));
    const unreachableLimitMs = options.unreachableLimitMs ?? RUN_STREAM_UNREACHABLE_LIMIT_MS;
    const waitMs = options.waitMs ?? RELAY_WAIT_MS;
    let unreachableSince: number | undefined;
    let lastWasFinal: boolean | undefined;
    while (!stop.signal.aborted) {
      let read: StreamRead;
      try {
        read = await trace.within(() =>
          runStream.read(runId, cursor, { blockMs: waitMs, follower, count: 100, signal: stop.signal }),
        );
        unreachableSince = undefined;
      } catch {
        // Redis out of reach: keep the client (heartbeats) while it may come back with the log intact.
        unreachableSince ??= Date.now();
        if (Date.now() - unreachableSince >= unreachableLimitMs) {
          await write(brokenEnd(options.model));
          break;
        }
        await sleep(RUN_STREAM_RETRY_MS, undefined, { signal: stop.signal }).catch(() => undefined);
        continue;
      }
      if (stop.signal.aborted) break;
      if (read.absent) {
        // The log is gone: what was not relayed yet will never come.
        await write(brokenEnd(options.model));
        break;
      }
      if (read.entries.length > 0) {
        trace.see(read.entries[0].trace);
        let text = '';
        for (const entry of read.entries) {
          text += `id: ${entry.offset}\ndata: ${entry.data}\n\n`;
          cursor = entry.offset;
        }
        lastWasFinal = isFinalChunkData(read.entries[read.entries.length - 1].data);
        if (read.ended)
          text += endedWithoutFinalChunk(lastWasFinal, options.after) ? brokenEnd(options.model) : SSE_DONE;
        await write(text);
      } else if (read.ended) {
        await write(endedWithoutFinalChunk(lastWasFinal, options.after) ? brokenEnd(options.model) : SSE_DONE);
      }
      if (read.ended) break;
    }
  } finally {
    heartbeats.delete(beat);
    trace.end();
    response.off('close', onEnd);
    options.shutdown.removeEventListener('abort', onEnd);
    if (!response.writableEnded) response.end();
  }
}

/** The end of a stream that broke: built when it is needed, so an open stream does not hold its text. */
function brokenEnd(model: string): string {
  return `data: ${JSON.stringify(streamLostChunk(model))}\n\n${SSE_DONE}`;
}

/** Writes, and waits for a slow client to take it (`drain`) or to go away (`signal`). */
export function writeOrWait(response: ServerResponse, text: string, signal: AbortSignal): Promise<void> {
  if (response.write(text) || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      response.off('drain', done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    response.once('drain', done);
    signal.addEventListener('abort', done, { once: true });
  });
}
