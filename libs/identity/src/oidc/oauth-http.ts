import express, { type Request, type Response } from 'express';

/** An RFC 6749 5.2 error: its status, code and a description for the client. */
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
};

/** RFC 6749 5.2 / RFC 6750 3.1 error bodies of the OAuth endpoints we serve ourselves. */
export function sendOAuthError(
  res: Response,
  status: number,
  error: string,
  description: string,
  headers: Record<string, string> = {},
): void {
  res
    .status(status)
    .set({ 'Cache-Control': 'no-store', Pragma: 'no-cache', ...headers })
    .json({ error, error_description: description });
}

/** Failures of our own infrastructure (database, Redis) unreachable: the spec's 502 `bad_gateway`. */
export function isUnreachable(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  const message = error instanceof Error ? error.message : '';
  return (
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', '57P01', '57P03', '08006', '08001'].includes(
      String(code),
    ) || /Connection terminated|timeout exceeded when trying to connect|Connection is closed/i.test(message)
  );
}

const parseForm = express.urlencoded({ extended: false, limit: '64kb', parameterLimit: 32 });

/**
 * The `application/x-www-form-urlencoded` body of an OAuth request, each parameter at most once
 * (RFC 6749 3.1: a repeated parameter is `invalid_request`), or the OAuthError to answer.
 */
export async function readOAuthForm(req: Request, res: Response): Promise<Record<string, string>> {
  if (!req.is('application/x-www-form-urlencoded')) {
    throw oauthErrors.invalidRequest('the body must be application/x-www-form-urlencoded');
  }
  let body: Record<string, unknown>;
  try {
    body = await new Promise((resolve, reject) =>
      parseForm(req, res, (error?: unknown) =>
        error ? reject(error as Error) : resolve((req.body ?? {}) as Record<string, unknown>),
      ),
    );
  } catch {
    throw oauthErrors.invalidRequest('the body could not be read (at most 64 KiB of form fields)');
  }
  const form: Record<string, string> = {};
  for (const [name, value] of Object.entries(body)) {
    if (typeof value !== 'string') throw oauthErrors.invalidRequest(`parameter ${name} must not be repeated`);
    if (value !== '') form[name] = value;
  }
  return form;
}
