import { invalidToken, missingToken } from './auth.errors';

// RFC 6750 section 2.1: `Bearer` (any case), then one token68 credential and nothing else.
const BEARER = /^bearer +([A-Za-z0-9\-._~+/]+=*)$/i;

/** The token of an `Authorization` header value; query-string and body tokens are never read. */
export function bearerTokenFrom(authorization: string | undefined): string {
  if (authorization === undefined || authorization === '') throw missingToken();
  const match = BEARER.exec(authorization);
  if (!match) throw invalidToken('the Authorization header must be "Bearer <token>"');
  return match[1];
}
