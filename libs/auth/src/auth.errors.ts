import { ApiError } from '@fed/contracts';

export const AUTH_REALM = 'federation';

// RFC 6750 section 3: the challenge tells the client why, in a quoted string.
function quoted(value: string): string {
  return `"${value.replace(/[\u0000-\u001f\u007f-\uffff]/g, '').replace(/["\\]/g, '\\$&')}"`;
}

function challenge(error?: string, description?: string): string {
  let value = `Bearer realm=${quoted(AUTH_REALM)}`;
  if (error) value += `, error=${quoted(error)}`;
  if (description) value += `, error_description=${quoted(description)}`;
  return value;
}

/** 401 for a token that is malformed, not verifiable, expired or revoked; `reason` is shown to the caller. */
export function invalidToken(reason: string): ApiError {
  return new ApiError('invalid_token', reason, { 'WWW-Authenticate': challenge('invalid_token', reason) });
}

/** The reason given for a revoked token (the access log tells it apart from other invalid tokens). */
export const REVOKED_TOKEN = 'the token has been revoked';

// RFC 6750 section 3.1: a request without credentials gets a bare challenge, no error code.
export function missingToken(): ApiError {
  return new ApiError('invalid_token', 'an access token is required', { 'WWW-Authenticate': challenge() });
}

export function insufficientScope(anyOf: readonly string[]): ApiError {
  const reason = `the token lacks the scope this endpoint requires (one of: ${anyOf.join(', ')})`;
  return new ApiError('insufficient_scope', reason, {
    'WWW-Authenticate': challenge('insufficient_scope', reason),
  });
}

/** 403 for a user's token on an admin route when the user is not an admin (any more). */
export function adminRoleRequired(): ApiError {
  const reason = "this endpoint's scope is held only by users whose role is admin";
  return new ApiError('insufficient_scope', reason, {
    'WWW-Authenticate': challenge('insufficient_scope', reason),
  });
}
