import { errorEnvelope } from '@fed/contracts';
import { type Logger, type Metrics, nameRequestSpan, requestContext, requestIdOf } from '@fed/observability';
import { type IncomingMessage, type ServerResponse } from 'node:http';
import { type InFlightTracker } from './in-flight-tracker';
import { loggedPath } from '../access-log/logged-request';
import { setSecurityHeaders } from './security-headers';

export type FastHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

export const FAST_ROUTES = Symbol.for('fed.server.FastRoutes');

/**
 * Routes answered by the HTTP server before Express and Nest, for the few hot paths whose cost
 * per request is the budget (the token endpoint). A fast route gets what every request gets
 * (in-flight tracking for the drain, security headers, a request id in `X-Request-Id` and in the
 * log context, metrics by its path) but no framework: it reads the raw request and writes the raw
 * response. Its access log line is written for failures (4xx at info, 5xx at error) and at debug
 * otherwise; the metrics count every request.
 */
export class FastRoutes {
  private readonly routes = new Map<string, FastHandler>();
  private readonly prefixes: {
    prefix: string;
    handler: FastHandler;
    label: (path: string) => string;
    withLogContext: boolean;
  }[] = [];

  /** `path` is matched exactly, without the query string. */
  add(method: 'GET' | 'POST', path: string, handler: FastHandler): void {
    const key = `${method} ${path}`;
    if (this.routes.has(key)) throw new Error(`fast route ${key} is registered twice`);
    this.routes.set(key, handler);
  }

  /**
   * Every method and every path under `prefix` (which ends with `/`), for a feature that routes its
   * own paths (the model gateway answers unknown paths under its prefix in its own error format).
   * Metrics label such requests with `label(path)` (by default the prefix and `*`), which must map
   * arbitrary paths onto a fixed set so that they cannot grow the metrics' cardinality.
   * `withLogContext: false` runs the handler outside the request-id log context (AsyncLocalStorage,
   * whose promise hooks cost every promise of the request): for a handler that passes the request
   * id to its log lines itself.
   */
  addPrefix(
    prefix: string,
    handler: FastHandler,
    label: (path: string) => string = () => `${prefix}*`,
    options: { withLogContext?: boolean } = {},
  ): void {
    if (!prefix.startsWith('/') || !prefix.endsWith('/'))
      throw new Error(`fast route prefix ${prefix} must start and end with /`);
    if (this.prefixes.some((p) => p.prefix.startsWith(prefix) || prefix.startsWith(p.prefix)))
      throw new Error(`fast route prefix ${prefix} overlaps another`);
    this.prefixes.push({ prefix, handler, label, withLogContext: options.withLogContext ?? true });
  }

  find(req: IncomingMessage): { path: string; handler: FastHandler; withLogContext?: boolean } | undefined {
    if (this.routes.size === 0 && this.prefixes.length === 0) return undefined;
    const url = req.url ?? '';
    const query = url.indexOf('?');
    const path = query < 0 ? url : url.slice(0, query);
    const handler = this.routes.get(`${req.method} ${path}`);
    if (handler) return { path, handler };
    for (const prefix of this.prefixes) {
      if (path.startsWith(prefix.prefix))
        return { path: prefix.label(path), handler: prefix.handler, withLogContext: prefix.withLogContext };
    }
    return undefined;
  }
}

/** Serves one request on a fast route with what the host gives every request. */
export function serveFast(
  route: { path: string; handler: FastHandler; withLogContext?: boolean },
  req: IncomingMessage,
  res: ServerResponse,
  host: { tracker: InFlightTracker; metrics: Metrics; logger: Logger },
): void {
  const started = process.hrtime.bigint();
  nameRequestSpan(req.method ?? 'GET', route.path);
  host.tracker.track(res);
  setSecurityHeaders(res);
  const requestId = requestIdOf(req);
  res.setHeader('X-Request-Id', requestId);
  res.once('finish', () => {
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const labels = { method: req.method ?? 'GET', route: route.path, status_code: String(res.statusCode) };
    host.metrics.httpDuration.observe(labels, seconds);
    host.metrics.httpRequests.inc(labels);
    const level = res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'info' : 'debug';
    if (host.logger.isLevelEnabled(level)) {
      host.logger[level](
        {
          requestId,
          req: { method: req.method, url: loggedPath(req.url ?? '') },
          res: { statusCode: res.statusCode },
          durationMs: Math.round(seconds * 1000),
        },
        `${req.method} ${loggedPath(req.url ?? '')} ${res.statusCode}`,
      );
    }
  });
  const run = () =>
    route.handler(req, res).catch((error: unknown) => {
      host.logger.error({ err: error, requestId }, 'fast route failed');
      if (!res.headersSent) {
        res.statusCode = 500;
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify(errorEnvelope('internal_error', 'internal error', requestId)));
      } else {
        res.destroy();
      }
    });
  if (route.withLogContext === false) void run();
  else requestContext.run({ requestId }, () => void run());
}
