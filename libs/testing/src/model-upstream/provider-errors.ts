import { STATUS_CODES } from 'node:http';

const ANTHROPIC_ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

function statusText(status: number): string {
  return STATUS_CODES[status] ?? (status === 529 ? 'Overloaded' : 'Error');
}

export function anthropicError(status: number, message = statusText(status)) {
  const type = ANTHROPIC_ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
  return { type: 'error', error: { type, message } };
}

export function openAiError(status: number, message = statusText(status)) {
  const type = status === 429 ? 'requests' : status >= 500 ? 'server_error' : 'invalid_request_error';
  const code = status === 429 ? 'rate_limit_exceeded' : status === 404 ? 'not_found' : null;
  return { error: { message, type, param: null, code } };
}

/** Anthropic's clients always send `anthropic-version`. */
export function providerError(status: number, anthropic: boolean, message?: string) {
  return anthropic ? anthropicError(status, message) : openAiError(status, message);
}
