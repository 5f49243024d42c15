import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException } from '@nestjs/common';
import { ApiError, DomainError, type ErrorCode, errorEnvelope } from '@fed/contracts';
import { type Logger } from '@fed/observability';
import { randomUUID } from 'node:crypto';
import { type Request, type Response } from 'express';
import { QueryFailedError } from 'typeorm';
import { JSON_REFUSED_TYPE } from '../http/json-body';
import { type BodyErrorFormats, type BodyRefusalAnswer } from './body-error-formats';
import { isDependencyUnavailable } from './dependency-unavailable';

/** Long enough for a database restart or a Redis failover to begin to pass. */
export const RETRY_AFTER_SECONDS = 5;

/** Nest's own HTTP exceptions (unknown route, body parser) in our vocabulary. */
const codeByStatus: Record<number, ErrorCode> = {
  400: 'invalid_request',
  401: 'invalid_token',
  403: 'insufficient_scope',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  503: 'service_unavailable',
};

export interface RenderedError {
  status: number;
  headers: Record<string, string>;
  body: ReturnType<typeof errorEnvelope>;
}

/**
 * Known errors get the spec's status and envelope; a database or Redis out of reach is a 503 with
 * `Retry-After`, so clients retry; anything else is a 500 whose `errorId` points to the logged stack.
 */
export function renderError(thrown: unknown, logger: Logger): RenderedError {
  const rendered = renderKnownOrNot(thrown, logger);
  if (rendered.status === 503 && !Object.keys(rendered.headers).some((name) => /^retry-after$/i.test(name))) {
    rendered.headers['Retry-After'] = String(RETRY_AFTER_SECONDS);
  }
  return rendered;
}

function renderKnownOrNot(thrown: unknown, logger: Logger): RenderedError {
  const error = thrown instanceof DomainError ? thrown.toApiError() : thrown;
  if (error instanceof ApiError)
    return { status: error.status, headers: { ...error.headers }, body: error.toEnvelope() };
  if (error instanceof QueryFailedError && (error.driverError as { code?: string } | undefined)?.code === '23505') {
    return { status: 409, headers: {}, body: errorEnvelope('conflict', 'the resource already exists') };
  }
  // Nest wraps body-parser errors in an HttpException; the original says what was wrong.
  const bodyParserError = asBodyParserError(error instanceof HttpException ? error.cause : error);
  if (bodyParserError) return bodyParserError;
  if (error instanceof HttpException && error.getStatus() < 500) {
    const status = error.getStatus();
    const code = codeByStatus[status] ?? 'invalid_request';
    return { status, headers: {}, body: errorEnvelope(code, messageOf(error)) };
  }
  const errorId = randomUUID();
  if (isDependencyUnavailable(error)) {
    logger.warn({ err: error, errorId }, 'a dependency is out of reach: answered 503');
    return {
      status: 503,
      headers: {},
      body: errorEnvelope(
        'service_unavailable',
        'a service this request needs is unavailable; try again shortly',
        errorId,
      ),
    };
  }
  logger.error({ err: error, errorId }, 'unhandled error');
  return { status: 500, headers: {}, body: errorEnvelope('internal_error', 'internal error', errorId) };
}

function messageOf(error: HttpException): string {
  const response = error.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (Array.isArray(message)) return message.join('; ');
  return typeof message === 'string' ? message : error.message;
}

/** body-parser signals problems with `type` and `status`. */
function isBodyParserError(thrown: unknown): boolean {
  const error = thrown instanceof HttpException ? thrown.cause : thrown;
  const { type, status } = (error ?? {}) as { type?: unknown; status?: unknown };
  return typeof type === 'string' && typeof status === 'number';
}

function asBodyParserError(error: unknown): RenderedError | undefined {
  const { type, status, message } = (error ?? {}) as { type?: unknown; status?: unknown; message?: unknown };
  if (typeof type !== 'string' || typeof status !== 'number') return undefined;
  switch (type) {
    case JSON_REFUSED_TYPE:
      return { status: 400, headers: {}, body: errorEnvelope('invalid_json', String(message)) };
    case 'entity.parse.failed':
      return { status: 400, headers: {}, body: errorEnvelope('invalid_json', 'the request body is not valid JSON') };
    case 'entity.too.large':
      return { status: 413, headers: {}, body: errorEnvelope('payload_too_large', 'the request body is too large') };
    case 'charset.unsupported':
    case 'encoding.unsupported':
      return { status: 415, headers: {}, body: errorEnvelope('unsupported_media_type', 'unsupported body encoding') };
    default:
      return status >= 400 && status < 500
        ? {
            status,
            headers: {},
            body: errorEnvelope(codeByStatus[status] ?? 'invalid_request', 'the request body was refused'),
          }
        : undefined;
  }
}

export function sendError(res: Response, rendered: RenderedError | BodyRefusalAnswer): void {
  if (res.headersSent) {
    // A stream already started: the response cannot change shape any more.
    res.end();
    return;
  }
  res.status(rendered.status).set(rendered.headers).json(rendered.body);
}

@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  constructor(
    private readonly logger: Logger,
    /** Routes whose body refusals are not in the REST envelope. */
    private readonly bodyFormats?: BodyErrorFormats,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const rendered = renderError(exception, this.logger);
    const format = isBodyParserError(exception) ? this.bodyFormats?.find(http.getRequest<Request>().path) : undefined;
    sendError(
      http.getResponse<Response>(),
      format ? format({ status: rendered.status, message: rendered.body.error.message }) : rendered,
    );
  }
}
