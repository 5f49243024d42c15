import { type Response } from 'express';

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
