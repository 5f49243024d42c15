import { type IncomingMessage, type ServerResponse } from 'node:http';

export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = 400,
  ) {
    super(`${error}: ${description}`);
    this.name = 'OAuthError';
  }
}

export const oauthErrors = {
  invalidRequest: (description: string) => new OAuthError('invalid_request', description),
  invalidClient: (description = 'client authentication failed') => new OAuthError('invalid_client', description, 401),
  invalidGrant: (description: string) => new OAuthError('invalid_grant', description),
  unauthorizedClient: (description: string) => new OAuthError('unauthorized_client', description),
  unsupportedGrantType: (description: string) => new OAuthError('unsupported_grant_type', description),
  invalidScope: (description: string) => new OAuthError('invalid_scope', description),
  /** RFC 8707 2: a `resource` the server does not serve, or not the one the grant was issued for. */
  invalidTarget: (description: string) => new OAuthError('invalid_target', description),
};

/** A JSON answer of an OAuth endpoint, never cached (RFC 6749 5.1); plain Node, so fast routes can use it. */
export function sendOAuthJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Pragma', 'no-cache');
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.end(JSON.stringify(body));
}

export function sendOAuthError(
  res: ServerResponse,
  status: number,
  error: string,
  description: string,
  headers: Record<string, string> = {},
): void {
  sendOAuthJson(res, status, { error, error_description: description }, headers);
}

/** Our own infrastructure (database, Redis) unreachable: the spec's 502 `bad_gateway`. */
export function isUnreachable(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  const message = error instanceof Error ? error.message : '';
  return (
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', '57P01', '57P03', '08006', '08001'].includes(
      String(code),
    ) || /Connection terminated|timeout exceeded when trying to connect|Connection is closed/i.test(message)
  );
}

const FORM_LIMIT_BYTES = 64 * 1024;
const FORM_TYPE = /^application\/x-www-form-urlencoded\s*(;|$)/i;

export function hasFormBody(req: IncomingMessage): boolean {
  return FORM_TYPE.test(req.headers['content-type'] ?? '');
}

/** At most 64 KiB; a repeated parameter is `invalid_request` (RFC 6749 3.1); empty values count as absent. */
export async function readOAuthForm(req: IncomingMessage): Promise<Record<string, string>> {
  if (!hasFormBody(req)) {
    throw oauthErrors.invalidRequest('the body must be application/x-www-form-urlencoded');
  }
  const tooLarge = () => oauthErrors.invalidRequest('the body is larger than 64 KiB');
  if (Number(req.headers['content-length'] ?? 0) > FORM_LIMIT_BYTES) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > FORM_LIMIT_BYTES) throw tooLarge();
    chunks.push(chunk);
  }
  const form: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(Buffer.concat(chunks, size).toString('utf8'))) {
    if (Object.hasOwn(form, name)) throw oauthErrors.invalidRequest(`parameter ${name} must not be repeated`);
    if (value !== '') form[name] = value;
  }
  return form;
}
