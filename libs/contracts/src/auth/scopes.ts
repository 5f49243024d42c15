// The scopes of spec document 1 ("Scopes"); a client is given a subset of them.
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
] as const;

export type Scope = (typeof scopes)[number];

/**
 * OpenID Connect's `offline_access` (Core 11), beyond document 1's list: an authorization request may
 * name it, whatever its client was given (as it may `openid`); no client is given it. Code clients get
 * a refresh token either way, so it changes only what the token response's `scope` echoes.
 */
export const OFFLINE_ACCESS_SCOPE = 'offline_access';

/** The scopes every authorization request may name, beyond the client's own. */
export const ALWAYS_ALLOWED_SCOPES: readonly string[] = ['openid', OFFLINE_ACCESS_SCOPE];

/**
 * The model gateway's scope, beyond document 1's list: a client-credentials token calls /llm/v1 only
 * with it (docs/gateway.md, "Keys, limits and quotas"); a user's token never calls the gateway.
 */
export const GATEWAY_SCOPE = 'llm:invoke' satisfies Scope;

export function isScope(value: string): value is Scope {
  return (scopes as readonly string[]).includes(value);
}

/**
 * The scopes of the admin API (document 1: system integrations choose them). A user's token carries
 * one only while the user's role is `admin`; a service account's token whatever its client was given.
 */
export const managementScopes: readonly Scope[] = [
  'sharedmemory:query',
  'users:read',
  'users:manage',
  'logs:read',
  'master:manage',
];

export function isManagementScope(value: string): boolean {
  return (managementScopes as readonly string[]).includes(value);
}
