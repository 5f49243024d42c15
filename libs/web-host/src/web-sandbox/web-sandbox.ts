import { createHash } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import { SandboxCspError, parseDeclaredCsp, sandboxCsp } from './sandbox-csp';
import { SANDBOX_PROXY_SCRIPT } from './sandbox-proxy-script';

// The UI resource sandbox of the web app (docs/web.md, "UI resources"): its own listener on its own origin,
// serving the MCP Apps sandbox proxy page and that page's script, nothing else. Plain node:http, no framework,
// so that any deployable that serves the web app can run it.

export interface WebSandboxOptions {
  /** The web app's origin (PUBLIC_URL): the only page that may frame the proxy and talk to it. */
  appOrigin: string;
  /** The sandbox's own origin (WEB_SANDBOX_URL). */
  sandboxOrigin: string;
  /** Origins a resource may never be allowed to reach besides those two (the sign-in pages'). */
  protectedOrigins?: readonly string[];
}

/** The proxy page; the app loads it with the resource's declared CSP as `?csp=<JSON>`. */
export const SANDBOX_PROXY_PATH = '/proxy';

const scriptBody = Buffer.from(SANDBOX_PROXY_SCRIPT);
/** Named by its content: cached for good, and a new version is a new name. */
export const SANDBOX_SCRIPT_PATH = `/proxy.${createHash('sha256').update(scriptBody).digest('hex').slice(0, 16)}.js`;

const escapeAttribute = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function proxyPage(appOrigin: string): Buffer {
  return Buffer.from(
    '<!doctype html>\n<html><head><meta charset="utf-8">' +
      `<meta name="fed-sandbox-host" content="${escapeAttribute(appOrigin)}">` +
      `<script src="${SANDBOX_SCRIPT_PATH}" defer></script></head><body></body></html>\n`,
  );
}

const COMMON_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

function answer(
  res: ServerResponse,
  status: number,
  headers: Record<string, string | number>,
  body: Buffer,
  head: boolean,
) {
  res.writeHead(status, { ...COMMON_HEADERS, ...headers, 'Content-Length': body.length });
  res.end(head ? undefined : body);
}

function refuse(
  res: ServerResponse,
  status: number,
  message: string,
  head: boolean,
  extra: Record<string, string> = {},
) {
  answer(
    res,
    status,
    {
      'Content-Type': 'text/plain; charset=utf-8',
      'Cache-Control': 'no-store',
      'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
      ...extra,
    },
    Buffer.from(`${message}\n`),
    head,
  );
}

/** The `csp` value of the query, `undefined` when absent; null when the query is malformed. */
function cspQuery(search: string): string | undefined | null {
  const query = new URLSearchParams(search);
  const names = [...query.keys()];
  if (names.some((name) => name !== 'csp') || query.getAll('csp').length > 1) return null;
  return query.get('csp') ?? undefined;
}

/** The request handler: GET (and HEAD) of the page and its script; a 400 for a bad `csp`, 404 for anything else. */
export function webSandboxHandler(options: WebSandboxOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const appOrigin = new URL(options.appOrigin).origin;
  const protectedOrigins = [appOrigin, new URL(options.sandboxOrigin).origin, ...(options.protectedOrigins ?? [])];
  const page = proxyPage(appOrigin);
  return (req, res) => {
    const head = req.method === 'HEAD';
    if (req.method !== 'GET' && !head) return refuse(res, 405, 'method not allowed', head, { Allow: 'GET, HEAD' });
    const url = req.url ?? '/';
    const queryAt = url.indexOf('?');
    const path = queryAt < 0 ? url : url.slice(0, queryAt);
    if (path === SANDBOX_SCRIPT_PATH) {
      return answer(
        res,
        200,
        { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'public, max-age=31536000, immutable' },
        scriptBody,
        head,
      );
    }
    if (path !== SANDBOX_PROXY_PATH) return refuse(res, 404, 'not found', head);
    const raw = cspQuery(queryAt < 0 ? '' : url.slice(queryAt + 1));
    if (raw === null) return refuse(res, 400, 'the only query parameter is one csp', head);
    let csp: string;
    try {
      csp = sandboxCsp(parseDeclaredCsp(raw, protectedOrigins), appOrigin);
    } catch (error) {
      if (error instanceof SandboxCspError) return refuse(res, 400, error.message, head);
      throw error;
    }
    answer(
      res,
      200,
      { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store', 'Content-Security-Policy': csp },
      page,
      head,
    );
  };
}

export interface RunningWebSandbox {
  /** Where it listens (the port may have been 0). */
  url: string;
  close(): Promise<void>;
}

/** Starts the sandbox listener. */
export async function startWebSandbox(
  options: WebSandboxOptions & { port: number; host: string },
): Promise<RunningWebSandbox> {
  const handler = webSandboxHandler(options);
  const server: Server = createServer((req, res) => {
    try {
      handler(req, res);
    } catch {
      if (!res.headersSent) refuse(res, 500, 'internal error', false);
      else res.destroy();
    }
  });
  // The page is a few hundred bytes: short timeouts, nothing to keep open for long.
  server.headersTimeout = 10_000;
  server.requestTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
