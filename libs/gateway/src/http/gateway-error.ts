import { type ServerResponse } from 'node:http';
import { type AnthropicErrorBody, type OpenAiErrorBody } from '../wire';

/** Every answer, error or not, is in the family of the endpoint called. */
export type ApiFamily = 'chat' | 'messages';

export type GatewayErrorKind =
  | 'invalid_request'
  | 'authentication'
  | 'permission'
  | 'not_found'
  | 'request_too_large'
  | 'rate_limit'
  | 'quota'
  | 'not_implemented'
  | 'upstream'
  | 'overloaded'
  | 'internal';

interface KindRendering {
  status: number;
  chatType: string;
  messagesType: string;
  retry?: boolean;
}

const renderings: Record<GatewayErrorKind, KindRendering> = {
  invalid_request: { status: 400, chatType: 'invalid_request_error', messagesType: 'invalid_request_error' },
  authentication: { status: 401, chatType: 'authentication_error', messagesType: 'authentication_error' },
  permission: { status: 403, chatType: 'permission_error', messagesType: 'permission_error' },
  not_found: { status: 404, chatType: 'not_found_error', messagesType: 'not_found_error' },
  request_too_large: { status: 413, chatType: 'invalid_request_error', messagesType: 'request_too_large' },
  rate_limit: { status: 429, chatType: 'rate_limit_error', messagesType: 'rate_limit_error', retry: true },
  quota: { status: 429, chatType: 'insufficient_quota', messagesType: 'rate_limit_error', retry: false },
  not_implemented: {
    status: 501,
    chatType: 'invalid_request_error',
    messagesType: 'invalid_request_error',
    retry: false,
  },
  upstream: { status: 502, chatType: 'api_error', messagesType: 'api_error', retry: true },
  overloaded: { status: 503, chatType: 'api_error', messagesType: 'overloaded_error', retry: true },
  internal: { status: 500, chatType: 'api_error', messagesType: 'api_error', retry: true },
};

/** Rendered in the caller's family (spec document 3, "Errors"). */
export class GatewayError extends Error {
  readonly status: number;

  constructor(
    readonly kind: GatewayErrorKind,
    /** Also the log's `errorCode`. */
    readonly code: string,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
    status?: number,
  ) {
    super(message);
    this.name = 'GatewayError';
    this.status = status ?? renderings[kind].status;
  }

  get type(): string {
    return renderings[this.kind].chatType;
  }
}

export function errorBody(family: ApiFamily, error: GatewayError): OpenAiErrorBody | AnthropicErrorBody {
  const rendering = renderings[error.kind];
  return family === 'messages'
    ? { type: 'error', error: { type: rendering.messagesType, message: error.message } }
    : { error: { message: error.message, type: rendering.chatType, param: null, code: error.code } };
}

export function writeError(res: ServerResponse, family: ApiFamily, error: GatewayError): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify(errorBody(family, error));
  const retry = renderings[error.kind].retry;
  res.statusCode = error.status;
  res.setHeader('content-type', 'application/json');
  res.setHeader('content-length', Buffer.byteLength(body));
  if (retry !== undefined) res.setHeader('x-should-retry', String(retry));
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  res.end(body);
}
