// Spec document 1 ("Scopes").
export const scopes = [
  'openid',
  'profile',
  'email',
  'chat:exec',
  'chat:history',
  'chat:file',
  'mcp:all',
  'a2a:all',
  'sharedmemory:query',
  'users:read',
  'users:manage',
  'logs:read',
  'master:manage',
  'llm:invoke',
  // Beyond document 1: the platform operator's (clients, gateway keys, tool servers, catalog, library, tenants,
  // signing keys: docs/security.md, "Who may do what"). Held only by the platform's own accounts.
  'platform:manage',
] as const;

export type Scope = (typeof scopes)[number];

/**
 * OpenID Connect's `offline_access` (Core 11), beyond document 1: any authorization request may name it;
 * no client is given it. Code clients get a refresh token either way: it changes only the echoed `scope`.
 */
export const OFFLINE_ACCESS_SCOPE = 'offline_access';

/** Beyond the client's own. */
export const ALWAYS_ALLOWED_SCOPES: readonly string[] = ['openid', OFFLINE_ACCESS_SCOPE];

/** Beyond document 1: a client-credentials token needs it for /llm/v1 (docs/gateway.md, "Keys, limits and quotas"). */
export const GATEWAY_SCOPE = 'llm:invoke' satisfies Scope;

/**
 * Beyond document 1: the operator console's and its HTTP APIs' scope (`/api/v1/admin/` routes of platform-wide
 * resources). A service account holds it only as a client of no tenant; a user only as an admin who is a platform
 * operator.
 */
export const PLATFORM_SCOPE = 'platform:manage' satisfies Scope;

export function isScope(value: string): value is Scope {
  return (scopes as readonly string[]).includes(value);
}

/** A user's token carries one only while the user's role is `admin` (document 1: system integrations choose them). */
export const managementScopes: readonly Scope[] = [
  'sharedmemory:query',
  'users:read',
  'users:manage',
  'logs:read',
  'master:manage',
  'platform:manage',
];

export function isManagementScope(value: string): boolean {
  return (managementScopes as readonly string[]).includes(value);
}
