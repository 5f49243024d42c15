import { errorEnvelope } from '@fed/contracts';
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { type IncomingMessage, type ServerResponse } from 'node:http';
import path from 'node:path';

// The web app's build (dist/web, tools/build-web.mjs) as the browser gets it, from whichever deployable
// serves it: the all-in-one platform (beside the APIs) or the web app's own deployable (apps/web-service).
// Plain node:http handlers, no framework.

/** The web app's public client (the demo realm makes it; operators register theirs, docs/web.md). */
export const WEB_CLIENT_ID = 'web';
/**
 * The chat's scopes and the console's (docs/web.md, "The console"): the provider grants a user the management
 * scopes only while an admin, and `platform:manage` only to a platform operator, so one sign-in serves both.
 */
export const WEB_SCOPES = [
  'openid',
  'profile',
  'email',
  'chat:exec',
  'chat:history',
  'chat:file',
  'users:read',
  'users:manage',
  'logs:read',
  'master:manage',
  'sharedmemory:query',
  'platform:manage',
];
/**
 * What the app asks for in the Marketplace edition, where it is that edition's admin panel (docs/marketplace.md,
 * "The admin panel"): the console's one scope and the sign-in's, none of the chat's (that edition's chat API serves
 * service accounts only).
 */
export const MARKETPLACE_WEB_SCOPES = ['openid', 'profile', 'email', 'platform:manage'];
export type WebEdition = 'saas' | 'marketplace';
export const webScopesFor = (edition: WebEdition = 'saas') =>
  edition === 'marketplace' ? MARKETPLACE_WEB_SCOPES : WEB_SCOPES;
export const WEB_CALLBACK_PATH = '/callback';
export const WEB_SIGNED_OUT_PATH = '/signed-out';
/** The operator console (apps/web, `/console/<section>`). */
export const WEB_CONSOLE_PATH = '/console';
/** Paths the app itself routes (apps/web); each answers its index.html. */
export const WEB_APP_PATHS = ['/', WEB_CALLBACK_PATH, WEB_SIGNED_OUT_PATH, WEB_CONSOLE_PATH];
/** A console screen (`/console/users`), also index.html. */
export const WEB_CONSOLE_PREFIX = '/console/';
/** A conversation opened in the app (`/c/<id>`), also index.html. */
export const WEB_CONVERSATION_PREFIX = '/c/';
export const WEB_ASSETS_PREFIX = '/assets/';
export const WEB_FAVICON_PATH = '/favicon.svg';

/**
 * The demo realm's client for the app served at `baseUrl` (apps/platform, `platformctl bootstrap`), in both editions:
 * in the Marketplace edition the app is its admin panel, and the client has the scopes the app asks for there.
 */
export function webAppClient(baseUrl: string, edition: WebEdition = 'saas') {
  return {
    clientId: WEB_CLIENT_ID,
    name: edition === 'marketplace' ? 'Admin panel' : 'Web app',
    scopes: webScopesFor(edition),
    baseUrl,
    callbackPath: WEB_CALLBACK_PATH,
    signedOutPath: WEB_SIGNED_OUT_PATH,
  };
}

/** What the app is told in its index.html (`<meta name="fed-web-config">`, apps/web/src/lib/web-config.ts). */
export interface WebAppSettings {
  /** The OpenID issuer ({auth_url}/realms/federation). */
  issuer: string;
  /** {auth_url}: the sign-out endpoint is under it. */
  authUrl: string;
  /** The chat API's model name. */
  chatModel: string;
  /** The UI resource sandbox's origin (WEB_SANDBOX_URL). */
  sandboxUrl: string;
  clientId?: string;
  /** EDITION: the SaaS edition's app (chat and console) or the Marketplace edition's admin panel (console only). */
  edition?: WebEdition;
}

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.map': 'application/json; charset=utf-8',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

/** Headers of every answer of the app, files and errors alike. */
const SECURITY_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

// No inline script or style, no framing of the app, and it talks to its own origin only; it frames only the
// UI resource sandbox.
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

/** index.html with what the app needs to know (issuer, client, sign-out endpoint, sandbox) in its meta tag. */
export function webIndexHtml(template: string, settings: WebAppSettings): string {
  const webConfig = {
    issuer: settings.issuer,
    clientId: settings.clientId ?? WEB_CLIENT_ID,
    scopes: webScopesFor(settings.edition),
    endSessionEndpoint: `${settings.authUrl}/federation/auth/v1/logout`,
    chatModel: settings.chatModel,
    sandboxUrl: settings.sandboxUrl,
    edition: settings.edition ?? 'saas',
  };
  const meta = `<meta name="fed-web-config" content="${escapeAttribute(JSON.stringify(webConfig))}" />`;
  return template.replace(/<meta name="fed-web-config" content="[^"]*"\s*\/?>/, meta);
}

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** The build's handlers: index.html (never cached), hashed assets (a year, immutable), the favicon (a day). */
export interface WebAppFiles {
  dir: string;
  serveIndex: Handler;
  serveAsset: Handler;
  serveFavicon: Handler;
}

/** The build in `dir`, or undefined when there is none (a host that runs only the APIs). */
export function loadWebAppFiles(dir: string, settings: WebAppSettings): WebAppFiles | undefined {
  const indexFile = path.join(dir, 'index.html');
  if (!existsSync(indexFile)) return undefined;
  const index = Buffer.from(webIndexHtml(readFileSync(indexFile, 'utf8'), settings));
  const csp = webAppCsp(settings.sandboxUrl);
  return {
    dir,
    serveIndex: async (_req, res) => {
      res.writeHead(200, {
        ...SECURITY_HEADERS,
        'Content-Type': 'text/html; charset=utf-8',
        'Content-Length': index.length,
        'Cache-Control': 'no-cache',
        'Content-Security-Policy': csp,
      });
      res.end(index);
    },
    serveAsset: (req, res) => serveFile(dir, res, pathOf(req).slice(1), 'public, max-age=31536000, immutable'),
    serveFavicon: (_req, res) => serveFile(dir, res, 'favicon.svg', 'public, max-age=86400'),
  };
}

/** The request's path without its query (not decoded: a `%` makes serveFile refuse the name). */
export function pathOf(req: IncomingMessage): string {
  const url = req.url ?? '/';
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}

async function serveFile(dir: string, res: ServerResponse, relative: string, cacheControl: string) {
  const file = path.resolve(dir, relative);
  const type = CONTENT_TYPES[path.extname(file)];
  // Only files of the build, by name: no traversal, no directory listing, no unknown types.
  if (
    !file.startsWith(dir + path.sep) ||
    type === undefined ||
    !/^[A-Za-z0-9._/-]+$/.test(relative) ||
    relative.split('/').includes('..')
  ) {
    return notFound(res);
  }
  const body = await readFile(file).catch(() => undefined);
  if (!body) return notFound(res);
  res.writeHead(200, {
    ...SECURITY_HEADERS,
    'Content-Type': type,
    'Content-Length': body.length,
    'Cache-Control': cacheControl,
  });
  res.end(body);
}

/** The platform's JSON error shape, as the APIs answer an unknown path. */
export function notFound(res: ServerResponse): void {
  const body = JSON.stringify(errorEnvelope('not_found', 'no such file'));
  res.writeHead(404, {
    ...SECURITY_HEADERS,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(body);
}
