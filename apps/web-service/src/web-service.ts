import { type AppConfig } from '@fed/config';
import { type Logger } from '@fed/observability';
import {
  WEB_APP_PATHS,
  WEB_ASSETS_PREFIX,
  WEB_CONSOLE_PREFIX,
  WEB_CONVERSATION_PREFIX,
  WEB_FAVICON_PATH,
  loadWebAppFiles,
  notFound,
  pathOf,
  startWebSandbox,
} from '@fed/web-host';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import path from 'node:path';

/** dist/web, beside dist/apps. */
export const WEB_DIR = path.resolve(__dirname, '../../../web');

export interface RunningWebApp {
  url: string;
  sandboxUrl: string;
  close(): Promise<void>;
}

const appPaths = new Set(WEB_APP_PATHS);

function json(res: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    ...extra,
  });
  res.end(text);
}

/** The app's files and the sandbox, each on its listener; refuses to start without a build. */
export async function startWebApp(config: AppConfig<'web-service'>, logger: Logger): Promise<RunningWebApp> {
  const files = loadWebAppFiles(WEB_DIR, {
    issuer: config.auth.issuer,
    authUrl: config.auth.authUrl,
    chatModel: config.chat.modelName,
    sandboxUrl: config.web.sandboxUrl,
    edition: config.edition,
  });
  if (!files) throw new Error(`the web app is not built in ${WEB_DIR} (node tools/build-web.mjs)`);
  const sandbox = await startWebSandbox({
    appOrigin: config.http.publicUrl,
    sandboxOrigin: config.web.sandboxUrl,
    protectedOrigins: [new URL(config.auth.authUrl).origin],
    port: config.web.sandboxPort,
    host: config.http.host,
  });

  const route = (req: IncomingMessage, res: ServerResponse): Promise<void> | void => {
    const at = pathOf(req);
    // Probes: alive while the process answers; ready once both listeners are up, which they are by now.
    if (at === '/healthz' || at === '/readyz') return json(res, 200, { status: 'ok' });
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return json(res, 405, { error: { code: 'method_not_allowed', message: 'GET only' } }, { Allow: 'GET, HEAD' });
    }
    if (appPaths.has(at) || at.startsWith(WEB_CONVERSATION_PREFIX) || at.startsWith(WEB_CONSOLE_PREFIX)) {
      return files.serveIndex(req, res);
    }
    if (at === WEB_FAVICON_PATH) return files.serveFavicon(req, res);
    if (at.startsWith(WEB_ASSETS_PREFIX)) return files.serveAsset(req, res);
    return notFound(res);
  };
  const server: Server = createServer((req, res) => {
    Promise.resolve(route(req, res)).catch((error: unknown) => {
      logger.error({ err: error, path: pathOf(req) }, 'web app request failed');
      if (!res.headersSent) json(res, 500, { error: { code: 'internal_error', message: 'internal error' } });
      else res.destroy();
    });
  });
  // Static files: nothing is uploaded and nothing streams for long.
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.http.port, config.http.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${config.http.host === '0.0.0.0' ? '127.0.0.1' : config.http.host}:${port}`;
  logger.info({ url, publicUrl: config.http.publicUrl, sandbox: sandbox.url }, 'web-service listening');
  return {
    url,
    sandboxUrl: sandbox.url,
    close: async () => {
      await Promise.all([
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
        }),
        sandbox.close(),
      ]);
    },
  };
}
