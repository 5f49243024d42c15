import { type IncomingMessage, type ServerResponse } from 'node:http';
import { type Metrics } from '../metrics/metrics';
import { type Health } from './health';

const LIVE_BODY = '{"status":"ok"}';

function send(res: ServerResponse, status: number, contentType: string, body: string) {
  res.statusCode = status;
  res.setHeader('Content-Type', contentType);
  res.setHeader('Cache-Control', 'no-store');
  res.end(body);
}

/** Ahead of the framework: probes must answer even when routing is busy or misconfigured, and cost almost nothing. */
export function operationalEndpoints(health: Health, metrics: Metrics) {
  return (req: IncomingMessage, res: ServerResponse, next: () => void) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const path = req.url?.split('?', 1)[0];
    if (path === '/healthz') return send(res, 200, 'application/json', LIVE_BODY);
    if (path === '/readyz') {
      void health.readiness().then(
        (readiness) => send(res, readiness.status === 'ok' ? 200 : 503, 'application/json', JSON.stringify(readiness)),
        () => send(res, 503, 'application/json', '{"status":"unavailable","checks":{}}'),
      );
      return;
    }
    if (path === '/metrics') {
      void metrics.render().then(
        ({ contentType, body }) => send(res, 200, contentType, body),
        () => send(res, 500, 'text/plain', 'metrics unavailable\n'),
      );
      return;
    }
    next();
  };
}
