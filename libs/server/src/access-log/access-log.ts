import { principalOf } from '@fed/auth';
import { authzOf } from '@fed/observability';
import { timeOrderedUuid } from '@fed/persistence';
import { type IncomingMessage, type ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import { clientAddress } from '../http/client-address';
import { type AccessLogRecord } from './access-log-writer';
import { HOST_LIMIT, USER_AGENT_LIMIT, loggedHeader, loggedMethod, loggedPath } from './logged-request';

/** The status recorded when the connection closed before the response was complete (nginx's "client closed request"). */
export const CLOSED_BEFORE_RESPONSE = 499;

/** Where finished requests' rows go (the host's AccessLogWriter). */
export interface AccessLogSink {
  append(row: AccessLogRecord): void;
  flush(): Promise<void>;
}

/**
 * One row per HTTP request a service answers (probes excepted), taken when the response closes:
 * on the request path only a start time and a listener; the row is built after the answer has left.
 * Rows go to the sink the host attaches once its database is up; none is kept before that.
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

  /** Writes what is buffered now (tests; the host flushes every second and on shutdown). */
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
      // From X-Forwarded-For behind proxies: whatever a caller wrote there when the chain is short; only an address is kept.
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
      // The authenticated caller's tenant: a Nest route's principal, or what a fast route's check noted
      // (the gateway's key or token). None for a request no credential was accepted on.
      tenant_id: principalOf(req)?.tenant?.id ?? authz?.tenantId ?? null,
    });
  }
}
