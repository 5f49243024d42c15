import { type RunStream } from '@fed/bus';
import { CHAT_STREAM_HEADERS, SSE_CONNECTED, SSE_DONE, SSE_HEADERS, SSE_HEARTBEAT } from '@fed/contracts';
import { type ServerResponse } from 'node:http';

export interface RelayOptions {
  runStream: RunStream;
  runId: string;
  /** Read entries strictly after this offset (`STREAM_START`: from the beginning). */
  after: string;
  heartbeatMs: number;
  /** Aborted when the instance shuts down: the stream then closes without `[DONE]`, to be rejoined elsewhere. */
  shutdown: AbortSignal;
}

/** The response headers of a chat stream (POST and reconnect alike). */
export function writeStreamHead(response: ServerResponse, conversationId: string, messageId: string): void {
  response.writeHead(200, {
    ...SSE_HEADERS,
    [CHAT_STREAM_HEADERS.conversationId]: conversationId,
    [CHAT_STREAM_HEADERS.messageId]: messageId,
  });
  response.write(SSE_CONNECTED);
}

/**
 * Relays a run's chunk log to one client: each entry as `id: <offset>` + `data: <chunk>`, a
 * `: heartbeat` after `heartbeatMs` of silence, `data: [DONE]` once the log has ended. Ends early,
 * without `[DONE]`, when the client goes away or the instance shuts down; the turn goes on either way.
 * A slow client is waited for (`drain`), so memory does not grow with its backlog.
 */
export async function relayRun(response: ServerResponse, options: RelayOptions): Promise<void> {
  const { runStream, runId, heartbeatMs } = options;
  const stop = new AbortController();
  const onClose = () => stop.abort();
  const onShutdown = () => stop.abort();
  response.once('close', onClose);
  options.shutdown.addEventListener('abort', onShutdown, { once: true });
  if (options.shutdown.aborted) stop.abort();
  let cursor = options.after;
  let lastWrite = Date.now();
  try {
    while (!stop.signal.aborted) {
      const quietFor = Date.now() - lastWrite;
      const read = await runStream.read(runId, cursor, {
        blockMs: Math.max(1, heartbeatMs - quietFor),
        count: 100,
        signal: stop.signal,
      });
      if (stop.signal.aborted) break;
      if (read.entries.length > 0) {
        let text = '';
        for (const entry of read.entries) {
          text += `id: ${entry.offset}\ndata: ${entry.data}\n\n`;
          cursor = entry.offset;
        }
        if (read.ended) text += SSE_DONE;
        await writeOrWait(response, text, stop.signal);
        lastWrite = Date.now();
      } else if (read.ended) {
        await writeOrWait(response, SSE_DONE, stop.signal);
      } else if (Date.now() - lastWrite >= heartbeatMs) {
        await writeOrWait(response, SSE_HEARTBEAT, stop.signal);
        lastWrite = Date.now();
      }
      if (read.ended) break;
    }
  } finally {
    response.off('close', onClose);
    options.shutdown.removeEventListener('abort', onShutdown);
    if (!response.writableEnded) response.end();
  }
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
