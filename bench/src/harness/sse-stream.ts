import { type EventSourceMessage, createParser } from 'eventsource-parser';
import http from 'node:http';
import { type RequestShape, requestOptions } from './latency';

export interface SseHandlers {
  /** Each event (`id:`, `data:`), as soon as its blank line has arrived. */
  onEvent?(event: EventSourceMessage): void;
  /** Each comment line (`: heartbeat` gives `heartbeat`). */
  onComment?(comment: string): void;
}

export interface SseStream {
  headers: http.IncomingHttpHeaders;
  /** Settles when the stream is over: ended by the server (no error), broken, or closed here. */
  closed: Promise<Error | undefined>;
  /** Closes the connection (the server sees the client go away). */
  close(): void;
}

/**
 * Sends a request answered by a server-sent-event stream and parses the stream as it arrives.
 * Resolves once a 200 and its headers have come; rejects on another status (with the start of its
 * body) or a network error (e.g. `EMFILE`, `ECONNRESET`).
 */
export function openSseStream(
  agent: http.Agent,
  url: URL,
  request: RequestShape,
  handlers: SseHandlers,
): Promise<SseStream> {
  return new Promise<SseStream>((resolve, reject) => {
    const req = http.request(requestOptions(agent, url, request, { Accept: 'text/event-stream' }), (res) => {
      res.setEncoding('utf8');
      if (res.statusCode !== 200) {
        let body = '';
        res.on('data', (chunk: string) => (body += chunk));
        res.on('close', () => reject(new Error(`${url.href} answered ${res.statusCode}: ${body.slice(0, 300)}`)));
        return;
      }
      const parser = createParser({
        onEvent: handlers.onEvent,
        onComment: (comment) => handlers.onComment?.(comment.trim()),
      });
      let failure: Error | undefined;
      const closed = new Promise<Error | undefined>((settle) => {
        res.on('error', (error) => (failure ??= error));
        res.on('close', () => settle(res.complete ? undefined : (failure ?? new Error('stream broken'))));
      });
      res.on('data', (chunk: string) => parser.feed(chunk));
      resolve({ headers: res.headers, closed, close: () => req.destroy() });
    });
    req.on('error', reject);
    req.end(request.body);
  });
}
