import type { ServerResponse } from 'node:http';
import type { RecordedRequest } from './upstream-step';

const JSON_HEADERS = { 'content-type': 'application/json' };
const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' };

export class Exchange {
  /** Answered, cut by the client, hung up or closed with the server. */
  closed = false;
  /** Cut on purpose, so its close is not the client going away. */
  hungUp = false;

  constructor(
    readonly request: RecordedRequest,
    readonly pathname: string,
    readonly res: ServerResponse,
  ) {}

  /** Less when the response closes first, so close() never waits on a timer. */
  pause(ms: number): Promise<void> {
    if (this.closed || ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.res.off('close', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.res.once('close', done);
    });
  }

  hangUp(): void {
    this.hungUp = true;
    this.res.destroy();
  }

  sendJson(status: number, body: unknown, headers?: Record<string, string>): void {
    // JSON.stringify(undefined) is undefined: an absent body is an empty one.
    this.sendText(status, JSON.stringify(body) ?? '', headers ? { ...JSON_HEADERS, ...headers } : JSON_HEADERS);
  }

  sendText(status: number, text: string, headers: Record<string, string>): void {
    if (this.closed) return;
    this.res.writeHead(status, { ...headers, 'content-length': Buffer.byteLength(text) });
    this.res.end(text);
  }

  startStream(status = 200, headers?: Record<string, string>): void {
    if (this.closed) return;
    this.res.writeHead(status, headers ? { ...SSE_HEADERS, ...headers } : SSE_HEADERS);
    // As providers do, so a client sees the answer begin before its first event.
    this.res.flushHeaders();
  }

  /** One write, chunked like a provider's, without one syscall per event. */
  sendStream(frames: string): void {
    if (this.closed) return;
    this.res.writeHead(200, SSE_HEADERS);
    this.res.write(frames);
    this.res.end();
  }
}

export function sseFrame(data: unknown, event?: string): string {
  const payload = typeof data === 'string' ? data : JSON.stringify(data);
  const lines = payload.includes('\n') ? payload.split('\n') : [payload];
  let frame = event === undefined ? '' : `event: ${event}\n`;
  for (const line of lines) frame += `data: ${line}\n`;
  return `${frame}\n`;
}
