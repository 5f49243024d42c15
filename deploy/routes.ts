import { type ServiceName, serviceNames } from '@fed/config';

// The public routing of the distributed deployment, in one place. The Kubernetes Ingresses
// (deploy/k8s/base/ingress.yaml) and the compose edge proxy (deploy/compose/nginx/default.conf) are
// written by hand; deploy.spec.ts checks both against this file, so change this file first.

/**
 * The deployables behind the edge: the six services (PostgreSQL and Redis behind them) and the web
 * app's, `web-service` (static files and the UI resource sandbox; no data, so not one of `serviceNames`).
 */
export type Deployable = ServiceName | 'web-service';
export const webService = 'web-service' as const satisfies Deployable;

/** Ingress `pathType`; `Exact` matches one path, `Prefix` whole path elements (`/a/b` ⊇ `/a/b/c`, ∌ `/a/bc`). */
export type PathType = 'Prefix' | 'Exact';

/**
 * How the edge treats a route; each profile is one Ingress object (annotations apply per Ingress).
 * - `auth`:   OIDC endpoints and login pages; small bodies, default timeouts.
 * - `api`:    ordinary JSON API; bodies up to 10 MB, 120 s.
 * - `stream`: server-sent events for minutes: no response buffering, 1 h read/send timeouts, 32 MB bodies.
 * - `upload`: file uploads up to 512 MB, streamed to the app (no request buffering), 10 min timeouts.
 * - `llm`:    the model gateway: 32 MB bodies, streamed responses, 1 h timeouts.
 * - `static`: the web app's files and the UI resource sandbox: GET only, so tiny bodies; 30 s timeouts;
 *             buffered (the files are small and answered at once).
 */
export type EdgeProfile = 'auth' | 'api' | 'stream' | 'upload' | 'llm' | 'static';

export interface Route {
  path: string;
  pathType: PathType;
  app: Deployable;
  profile: EdgeProfile;
}

export const routes: readonly Route[] = [
  // auth-service: discovery under the issuer {auth_url}/realms/federation, the OAuth/OIDC endpoints
  // with their login and consent pages, and the Marketplace token exchange.
  { path: '/realms/federation', pathType: 'Prefix', app: 'auth-service', profile: 'auth' },
  // The same discovery document at the host's root (RFC 8414 3.1 path insertion, and the MCP spec's next try).
  {
    path: '/.well-known/oauth-authorization-server/realms/federation',
    pathType: 'Exact',
    app: 'auth-service',
    profile: 'auth',
  },
  {
    path: '/.well-known/openid-configuration/realms/federation',
    pathType: 'Exact',
    app: 'auth-service',
    profile: 'auth',
  },
  { path: '/federation/auth/v1', pathType: 'Prefix', app: 'auth-service', profile: 'auth' },
  { path: '/api/v1/auth', pathType: 'Prefix', app: 'auth-service', profile: 'auth' },
  // chat-service: streamed completions, conversations, files, and the user-facing catalogue
  // endpoints. /api/v1/users (the user's own profile), /api/v1/organizations and /api/v1/job-types
  // (master data as users read it) live here too; their administration is under /api/v1/admin
  // (admin-service).
  { path: '/api/v1/chat', pathType: 'Prefix', app: 'chat-service', profile: 'stream' },
  { path: '/api/v1/conversations', pathType: 'Prefix', app: 'chat-service', profile: 'api' },
  { path: '/api/v1/files', pathType: 'Prefix', app: 'chat-service', profile: 'upload' },
  { path: '/api/v1/library', pathType: 'Prefix', app: 'chat-service', profile: 'api' },
  { path: '/api/v1/personas', pathType: 'Prefix', app: 'chat-service', profile: 'api' },
  { path: '/api/v1/playbooks', pathType: 'Prefix', app: 'chat-service', profile: 'api' },
  { path: '/api/v1/skills', pathType: 'Prefix', app: 'chat-service', profile: 'api' },
  { path: '/api/v1/search', pathType: 'Prefix', app: 'chat-service', profile: 'api' },
  { path: '/api/v1/users', pathType: 'Prefix', app: 'chat-service', profile: 'api' },
  { path: '/api/v1/organizations', pathType: 'Prefix', app: 'chat-service', profile: 'api' },
  { path: '/api/v1/job-types', pathType: 'Prefix', app: 'chat-service', profile: 'api' },
  // admin-service; the operator's library uploads (up to 512 MB, streamed) are its one upload path.
  { path: '/api/v1/admin', pathType: 'Prefix', app: 'admin-service', profile: 'api' },
  { path: '/api/v1/admin/library/files', pathType: 'Exact', app: 'admin-service', profile: 'upload' },
  // agent-protocols: the A2A agent card, A2A and MCP (both stream events).
  { path: '/.well-known/agent-card.json', pathType: 'Exact', app: 'agent-protocols', profile: 'api' },
  // MCP's protected-resource metadata (RFC 9728), named by its 401 challenge.
  {
    path: '/.well-known/oauth-protected-resource/api/v1/mcp',
    pathType: 'Exact',
    app: 'agent-protocols',
    profile: 'api',
  },
  { path: '/api/v1/a2a', pathType: 'Prefix', app: 'agent-protocols', profile: 'stream' },
  { path: '/api/v1/mcp', pathType: 'Prefix', app: 'agent-protocols', profile: 'stream' },
  // llm-gateway: OpenAI- and Anthropic-compatible model API.
  { path: '/llm/v1', pathType: 'Prefix', app: 'llm-gateway', profile: 'llm' },
  // web-service: the web app's pages, its conversation links, its hashed files and its icon. `/` is Exact,
  // so an unknown path still gets the edge's 404 rather than the app's page.
  { path: '/', pathType: 'Exact', app: webService, profile: 'static' },
  { path: '/callback', pathType: 'Exact', app: webService, profile: 'static' },
  { path: '/signed-out', pathType: 'Exact', app: webService, profile: 'static' },
  { path: '/c', pathType: 'Prefix', app: webService, profile: 'static' },
  { path: '/console', pathType: 'Prefix', app: webService, profile: 'static' },
  { path: '/assets', pathType: 'Prefix', app: webService, profile: 'static' },
  { path: '/favicon.svg', pathType: 'Exact', app: webService, profile: 'static' },
];

/**
 * The UI resource sandbox: every path of a host (compose: a port) of its own, WEB_SANDBOX_URL, to
 * web-service's second listener (WEB_SANDBOX_PORT). Another origin than the app's is the point: a UI
 * resource framed there cannot read the app's storage or cookies.
 */
export const sandboxRoute = {
  app: webService,
  portName: 'sandbox',
  port: 8081,
  profile: 'static',
} as const satisfies { app: Deployable; portName: string; port: number; profile: EdgeProfile };

/** Apps with an HTTP server: every deployable (agent-runtime serves only /healthz, /readyz and /metrics). */
export const httpApps: readonly Deployable[] = [...serviceNames, webService];

/** Apps reachable from outside. */
export const publicApps: readonly Deployable[] = httpApps.filter((app) => routes.some((r) => r.app === app));

/** Every public path the product spec names, with the app that must answer it. */
export const specPaths: readonly { path: string; app: Deployable }[] = [
  ...[
    '/realms/federation/.well-known/openid-configuration',
    '/realms/federation/.well-known/oauth-authorization-server',
    '/.well-known/oauth-authorization-server/realms/federation',
    '/.well-known/openid-configuration/realms/federation',
    '/federation/auth/v1/authorize',
    '/federation/auth/v1/token',
    '/federation/auth/v1/userinfo',
    '/federation/auth/v1/jwks',
    '/federation/auth/v1/revoke',
    '/api/v1/auth/external-service-token',
  ].map((path) => ({ path, app: 'auth-service' as const })),
  ...[
    '/api/v1/chat/completions',
    '/api/v1/chat/completions/0b9e2f3c-6a4d-4c1e-9f57-1c2d3e4f5a6b',
    '/api/v1/chat/completions/0b9e2f3c-6a4d-4c1e-9f57-1c2d3e4f5a6b/cancel',
    '/api/v1/conversations',
    '/api/v1/conversations/0b9e2f3c-6a4d-4c1e-9f57-1c2d3e4f5a6b',
    '/api/v1/conversations/0b9e2f3c-6a4d-4c1e-9f57-1c2d3e4f5a6b/messages',
    '/api/v1/conversations/0b9e2f3c-6a4d-4c1e-9f57-1c2d3e4f5a6b/ui-resources/res_42',
    '/api/v1/conversations/0b9e2f3c-6a4d-4c1e-9f57-1c2d3e4f5a6b/restore',
    '/api/v1/files',
    '/api/v1/files/0b9e2f3c-6a4d-4c1e-9f57-1c2d3e4f5a6b',
    '/api/v1/files/0b9e2f3c-6a4d-4c1e-9f57-1c2d3e4f5a6b/content',
    '/api/v1/library',
    '/api/v1/personas',
    '/api/v1/playbooks',
    '/api/v1/skills',
    '/api/v1/search',
    '/api/v1/users/me',
    '/api/v1/organizations',
    '/api/v1/job-types',
  ].map((path) => ({ path, app: 'chat-service' as const })),
  ...[
    '/api/v1/admin/memory/query',
    '/api/v1/admin/users',
    '/api/v1/admin/users/7f1c/role',
    '/api/v1/admin/organizations',
    '/api/v1/admin/job-types/sales',
    '/api/v1/admin/audit-logs',
    '/api/v1/admin/llm-logs',
    '/api/v1/admin/llm-gateway-logs',
    '/api/v1/admin/access-logs',
    '/api/v1/admin/guardrail-alerts',
    // Beyond document 3: the platform operator's APIs (issue 38).
    '/api/v1/admin/tool-servers/weather/refresh',
    '/api/v1/admin/personas/analyst',
    '/api/v1/admin/library',
    '/api/v1/admin/library/files',
  ].map((path) => ({ path, app: 'admin-service' as const })),
  ...['/.well-known/agent-card.json', '/api/v1/a2a', '/api/v1/mcp'].map((path) => ({
    path,
    app: 'agent-protocols' as const,
  })),
  ...[
    '/llm/v1/chat/completions',
    '/llm/v1/responses',
    '/llm/v1/embeddings',
    '/llm/v1/models',
    '/llm/v1/messages',
    '/llm/v1/messages/count_tokens',
  ].map((path) => ({ path, app: 'llm-gateway' as const })),
  // The web app (docs/web.md): sign-in callback, signed-out page, a conversation's link, a hashed file.
  ...[
    '/',
    '/callback',
    '/signed-out',
    '/c/0b9e2f3c-6a4d-4c1e-9f57-1c2d3e4f5a6b',
    '/console',
    '/console/users',
    '/assets/index-3f2a9c1b.js',
    '/favicon.svg',
  ].map((path) => ({ path, app: webService })),
];

/**
 * Paths the edge must NOT send to any app: the operational endpoints stay in-cluster, and
 * look-alikes of routed prefixes must not match (Prefix matches whole path elements only).
 */
export const unroutedPaths: readonly string[] = [
  '/index.html',
  '/x',
  '/callbackx',
  '/callback/x',
  '/signed-out/x',
  '/cx',
  '/consolex',
  '/assetsx',
  '/favicon.ico',
  '/favicon.svg/x',
  '/proxy',
  '/metrics',
  '/healthz',
  '/readyz',
  '/api',
  '/api/v1',
  '/api/v1/a2abc',
  '/api/v1/chatter',
  '/api/v1/filesystem',
  '/api/v1/administrator',
  '/api/v1/master',
  '/api/v1/usersx',
  '/.well-known/agent-card.jsonx',
  '/.well-known/agent-card.json/x',
  '/.well-known/oauth-protected-resource',
  '/.well-known/oauth-protected-resource/api/v1/mcp/x',
  '/realms/federationx',
  '/realms/other/.well-known/openid-configuration',
  '/llm/v2/models',
];

/** Kubernetes Ingress path matching (networking.k8s.io/v1): does `route` match `path`? */
export function matches(route: Pick<Route, 'path' | 'pathType'>, path: string): boolean {
  if (route.pathType === 'Exact') return path === route.path;
  const prefix = route.path.split('/').filter(Boolean);
  const elements = path.split('/').filter(Boolean);
  return prefix.length <= elements.length && prefix.every((element, i) => element === elements[i]);
}

/**
 * The route that serves `path`: the longest matching path wins, and of equally long ones an
 * Exact path beats a Prefix path (the Ingress precedence rules; nginx's `location =` and
 * longest-prefix rules give the same answer).
 */
export function resolve<T extends Pick<Route, 'path' | 'pathType'>>(
  candidates: readonly T[],
  path: string,
): T | undefined {
  let best: T | undefined;
  for (const candidate of candidates) {
    if (!matches(candidate, path)) continue;
    if (
      best === undefined ||
      candidate.path.length > best.path.length ||
      (candidate.path.length === best.path.length && candidate.pathType === 'Exact' && best.pathType !== 'Exact')
    ) {
      best = candidate;
    }
  }
  return best;
}
