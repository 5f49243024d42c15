import { Inject, Injectable, Module, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { errorEnvelope } from '@fed/contracts';
import { LOGGER, type Logger } from '@fed/observability';
import { FAST_ROUTES, type FastRoutes } from '@fed/server';
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { type IncomingMessage, type ServerResponse } from 'node:http';
import path from 'node:path';
import { type RunningWebSandbox, startWebSandbox } from './web-sandbox/web-sandbox';

/** The web app's public client in the demo realm (demo-realm.ts). */
export const WEB_CLIENT_ID = 'web';
export const WEB_SCOPES = ['openid', 'profile', 'email', 'chat:exec', 'chat:history', 'chat:file'];
export const WEB_CALLBACK_PATH = '/callback';
export const WEB_SIGNED_OUT_PATH = '/signed-out';
/** Paths the app itself routes (apps/web); each answers its index.html. */
export const WEB_APP_PATHS = ['/', WEB_CALLBACK_PATH, WEB_SIGNED_OUT_PATH];
export const WEB_DIR = path.resolve(__dirname, '../../../web');

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.map': 'application/json; charset=utf-8',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

// No inline script or style, no framing of the app, and it talks to its own origin only; it frames only the
// UI resource sandbox (web-sandbox/).
export const webAppCsp = (sandboxUrl: string) =>
  [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: blob:",
    "connect-src 'self'",
    `frame-src ${new URL(sandboxUrl).origin}`,
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    "form-action 'self'",
  ].join('; ');

const escapeAttribute = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** index.html with what the app needs to know (issuer, client, sign-out endpoint) in its meta tag. */
export function webIndexHtml(template: string, config: Pick<ServiceConfig, 'auth' | 'chat' | 'web'>): string {
  const webConfig = {
    issuer: config.auth.issuer,
    clientId: WEB_CLIENT_ID,
    scopes: WEB_SCOPES,
    endSessionEndpoint: `${config.auth.authUrl}/federation/auth/v1/logout`,
    chatModel: config.chat.modelName,
    sandboxUrl: config.web.sandboxUrl,
  };
  const meta = `<meta name="fed-web-config" content="${escapeAttribute(JSON.stringify(webConfig))}" />`;
  return template.replace(/<meta name="fed-web-config" content="[^"]*"\s*\/?>/, meta);
}

/**
 * Serves the built web app (dist/web) at `/`: hashed assets cached for a year, index.html never; the APIs keep
 * their paths. Without a build (tests that run only the APIs) nothing is registered.
 */
@Injectable()
export class WebAppRoutes implements OnModuleInit {
  constructor(
    @Inject(FAST_ROUTES) private readonly routes: FastRoutes,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onModuleInit(): void {
    const indexFile = path.join(WEB_DIR, 'index.html');
    if (!existsSync(indexFile)) {
      this.logger.warn({ dir: WEB_DIR }, 'web app not built: run `node tools/build-web.mjs` (npm start does)');
      return;
    }
    const index = Buffer.from(webIndexHtml(readFileSync(indexFile, 'utf8'), this.config));
    const csp = webAppCsp(this.config.web.sandboxUrl);
    const serveIndex = async (_req: IncomingMessage, res: ServerResponse) => {
      res.writeHead(200, {
        'Content-Type': 'text/html; charset=utf-8',
        'Content-Length': index.length,
        'Cache-Control': 'no-cache',
        'Content-Security-Policy': csp,
      });
      res.end(index);
    };
    for (const appPath of WEB_APP_PATHS) this.routes.add('GET', appPath, serveIndex);
    // A conversation opened in the app (`/c/<id>`).
    this.routes.addPrefix('/c/', serveIndex, () => '/c/*');
    this.routes.add('GET', '/favicon.svg', (req, res) => serveFile(req, res, 'favicon.svg', 'public, max-age=86400'));
    this.routes.addPrefix('/assets/', (req, res) =>
      serveFile(req, res, pathOf(req).slice(1), 'public, max-age=31536000, immutable'),
    );
  }
}

/** The request's path without its query (not decoded: a `%` makes serveFile refuse the name). */
function pathOf(req: IncomingMessage): string {
  const url = req.url ?? '/';
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}

async function serveFile(_req: IncomingMessage, res: ServerResponse, relative: string, cacheControl: string) {
  const file = path.resolve(WEB_DIR, relative);
  const type = CONTENT_TYPES[path.extname(file)];
  // Only files of the build, by name: no traversal, no directory listing, no unknown types.
  if (
    !file.startsWith(WEB_DIR + path.sep) ||
    type === undefined ||
    !/^[A-Za-z0-9._/-]+$/.test(relative) ||
    relative.split('/').includes('..')
  ) {
    return notFound(res);
  }
  const body = await readFile(file).catch(() => undefined);
  if (!body) return notFound(res);
  res.writeHead(200, { 'Content-Type': type, 'Content-Length': body.length, 'Cache-Control': cacheControl });
  res.end(body);
}

function notFound(res: ServerResponse): void {
  const body = JSON.stringify(errorEnvelope('not_found', 'no such file'));
  res.writeHead(404, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

/** The UI resource sandbox's listener (web-sandbox/), beside the app's: only when there is an app to serve. */
@Injectable()
export class WebSandboxListener implements OnModuleInit, OnModuleDestroy {
  private sandbox?: RunningWebSandbox;

  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onModuleInit(): Promise<void> {
    if (!existsSync(path.join(WEB_DIR, 'index.html'))) return;
    const { http, auth, web } = this.config;
    try {
      this.sandbox = await startWebSandbox({
        appOrigin: http.publicUrl,
        sandboxOrigin: web.sandboxUrl,
        protectedOrigins: [new URL(auth.authUrl).origin],
        port: web.sandboxPort,
        host: http.host,
      });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`the UI resource sandbox cannot listen on WEB_SANDBOX_PORT ${web.sandboxPort} (${reason})`);
    }
    this.logger.info({ url: this.sandbox.url, publicUrl: web.sandboxUrl }, 'UI resource sandbox listening');
  }

  async onModuleDestroy(): Promise<void> {
    await this.sandbox?.close();
  }
}

@Module({ providers: [WebAppRoutes, WebSandboxListener] })
export class WebAppModule {}
