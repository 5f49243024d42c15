import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type ServerResponse } from 'node:http';
import { type Logger } from 'pino';
import { pinoHttp } from 'pino-http';
import { requestContext } from './request-context';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Keeps a caller's `X-Request-Id` when it is harmless; otherwise makes a new one. */
export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && SAFE_REQUEST_ID.test(given) ? given : randomUUID();
}

type Next = (error?: unknown) => void;

/**
 * Connect-style middleware: assigns the request id (echoed in `X-Request-Id`), runs the rest of the
 * request inside its context, and writes one access line per request when it completes.
 */
/**
 * One log line per request, with its request id in the log context. `loggedUrl` says what of the URL a
 * line may show: query values can be secrets (authorization codes, e-mail link tokens, states).
 */
export function requestLogging(logger: Logger, loggedUrl: (url: string) => string) {
  const httpLogger = pinoHttp({
    logger,
    genReqId: (req, res) => {
      const id = requestIdOf(req);
      res.setHeader('X-Request-Id', id);
      return id;
    },
    customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : 'info'),
    serializers: {
      req: (req: { method: string; url: string; id: string }) => ({ method: req.method, url: loggedUrl(req.url) }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
    customSuccessMessage: (req, res, responseTime) =>
      `${req.method} ${loggedUrl(req.url ?? '')} ${res.statusCode} ${Math.round(responseTime)}ms`,
    customErrorMessage: (req, res) => `${req.method} ${loggedUrl(req.url ?? '')} ${res.statusCode}`,
    customAttributeKeys: { reqId: 'requestId', responseTime: 'durationMs' },
    quietReqLogger: true,
  });
  return (req: IncomingMessage, res: ServerResponse, next: Next) => {
    httpLogger(req, res);
    const requestId = String((req as IncomingMessage & { id: unknown }).id);
    requestContext.run({ requestId }, next);
  };
}
