import { principalOf } from '@fed/auth';
import { authzOf } from '@fed/observability';
import { timeOrderedUuid } from '@fed/persistence';
import { type IncomingMessage, type ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import { clientAddress } from '../http/client-address';
import { type AccessLogRecord } from './access-log-writer';
import { HOST_LIMIT, USER_AGENT_LIMIT, loggedHeader, loggedMethod, loggedPath } from './logged-request';

/** nginx's "client closed request": the connection closed before the response was complete. */
export const CLOSED_BEFORE_RESPONSE = 499;

export interface AccessLogSink {
  append(row: AccessLogRecord): void;
  flush(): Promise<void>;
}

/**
 * One row per request (probes excepted): the request path pays only a start time and a listener; the
 * row is built once the answer has left. Nothing is kept before the host attaches its sink.
 */
export class AccessLog {
  private sink: AccessLogSink | undefined;

  constructor(
    private readonly service: string,
    private readonly trustProxyHops: number,
  ) {}

  attach(sink: AccessLogSink | undefined): void {
    this.sink = sink;
  }

  /** For tests; the host flushes every second and on shutdown. */
  flush(): Promise<void> {
    return this.sink?.flush() ?? Promise.resolve();
  }

  track(req: IncomingMessage, res: ServerResponse): void {
    if (this.sink === undefined) return;
    const startedAt = Date.now();
    const started = performance.now();
    // Now: once the connection has gone its peer address may be unknown.
    const sourceIp = clientAddress(req, this.trustProxyHops);
    res.once('close', () => this.record(req, res, startedAt, started, sourceIp));
  }

  private record(
    req: IncomingMessage,
    res: ServerResponse,
    startedAt: number,
    started: number,
    sourceIp: string,
  ): void {
    const durationMs = Math.round((performance.now() - started) * 100) / 100;
    const authz = authzOf(req);
    this.sink?.append({
      id: timeOrderedUuid(startedAt),
      created_at: new Date(startedAt).toISOString(),
      service: this.service,
      // X-Forwarded-For may hold whatever a caller wrote: only an address is kept.
      source_ip: isIP(sourceIp) !== 0 ? sourceIp : null,
      method: loggedMethod(req.method),
      host: loggedHeader(req.headers.host, HOST_LIMIT),
      // Express rewrites req.url while routing; originalUrl is what the client sent.
      path: loggedPath((req as { originalUrl?: string }).originalUrl ?? req.url ?? ''),
      user_agent: loggedHeader(req.headers['user-agent'], USER_AGENT_LIMIT),
      status_code: res.writableFinished ? res.statusCode : CLOSED_BEFORE_RESPONSE,
      duration_ms: durationMs,
      authz_result: authz?.result ?? null,
      authz_reason: authz?.reason ?? null,
      // A Nest route's principal, or what a fast route's check noted (the gateway's key or token).
      tenant_id: principalOf(req)?.tenant?.id ?? authz?.tenantId ?? null,
    });
  }
}
