import { errorEnvelope } from '@fed/contracts';
import { type Logger, type Metrics, nameRequestSpan, requestContext, requestIdOf } from '@fed/observability';
import { type IncomingMessage, type ServerResponse } from 'node:http';
import { type InFlightTracker } from './in-flight-tracker';
import { loggedPath } from '../access-log/logged-request';
import { setSecurityHeaders } from './security-headers';

export type FastHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

export const FAST_ROUTES = Symbol.for('fed.server.FastRoutes');

/**
 * Answered before Express and Nest, for hot paths whose per-request cost is the budget (the token
 * endpoint). They still get in-flight tracking, security headers, a request id and metrics.
 */
export class FastRoutes {
  private readonly routes = new Map<string, FastHandler>();
  private readonly prefixes: {
    prefix: string;
    handler: FastHandler;
    label: (path: string) => string;
    withLogContext: boolean;
  }[] = [];

  /** Matched exactly, without the query string. */
  add(method: 'GET' | 'POST', path: string, handler: FastHandler): void {
    const key = `${method} ${path}`;
    if (this.routes.has(key)) throw new Error(`fast route ${key} is registered twice`);
    this.routes.set(key, handler);
  }

  /**
   * `label(path)` must map arbitrary paths onto a fixed set, so metrics' cardinality cannot grow.
   * `withLogContext: false` skips AsyncLocalStorage, whose promise hooks cost every promise of the request.
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
