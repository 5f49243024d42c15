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
] as const;

export type Scope = (typeof scopes)[number];

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
