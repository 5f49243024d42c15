import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type ServerResponse } from 'node:http';
import { type Logger } from 'pino';
import { requestContext } from './request-context';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Keeps a caller's `X-Request-Id` when it is harmless. */
export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && SAFE_REQUEST_ID.test(given) ? given : randomUUID();
}

type Next = (error?: unknown) => void;

/**
 * `loggedUrl` says what of the URL a line may show: query values can be secrets (authorization codes,
 * e-mail link tokens, states). A request holds one listener and nothing else until its line is written:
 * chat streams stay open for minutes, thousands at a time.
 */
export function requestLogging(logger: Logger, loggedUrl: (url: string) => string) {
  return (req: IncomingMessage, res: ServerResponse, next: Next) => {
    const startedAt = Date.now();
    const requestId = requestIdOf(req);
    res.setHeader('X-Request-Id', requestId);
    const done = (error?: unknown) => {
      res.off('close', done);
      res.off('error', done);
      const failed = error !== undefined || res.statusCode >= 500;
      const level = failed ? 'error' : 'info';
      if (!logger.isLevelEnabled(level)) return;
      const url = loggedUrl(req.url ?? '');
      const line = {
        requestId,
        req: { method: req.method, url },
        res: { statusCode: res.statusCode },
        durationMs: Date.now() - startedAt,
      };
      if (failed) {
        logger.error(
          { ...line, err: error ?? new Error(`failed with status code ${res.statusCode}`) },
          `${req.method} ${url} ${res.statusCode}`,
        );
      } else {
        logger.info(line, `${req.method} ${url} ${res.statusCode} ${line.durationMs}ms`);
      }
    };
    res.on('close', done);
    res.on('error', done);
    requestContext.run({ requestId }, next);
  };
}
