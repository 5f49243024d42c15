import { type IncomingMessage, type ServerResponse } from 'node:http';

/** One header's value; a repeated header arrives joined with `, ` (as HTTP says it is to be read). */
export function headerValue(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** A whole JSON answer, never cached. */
export function sendJson(
  res: ServerResponse,
  statusCode: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
  res.writeHead(statusCode, {
    ...headers,
    'Content-Type': 'application/json',
    'Content-Length': text.length,
    'Cache-Control': 'no-store',
  });
  res.end(text);
}
