import { GATEWAY_SCOPE, isManagementScope } from '@fed/contracts';
import { type UserRole } from '@fed/identity/internal';

/**
 * The role rule: an application's user holds its management scopes (`users:*`, `logs:read`,
 * `sharedmemory:query`, `master:manage`) only while the user's role is `admin`; every other scope of
 * the application whatever the role. Applied when consent is asked, when the grant is made, at the
 * code exchange and at every refresh.
 */
export function scopesHeldBy(role: UserRole, scopes: readonly string[]): string[] {
  return scopes.filter((scope) => !withheld(role, scope));
}

/** The scopes of `scopes` that a user of `role` may not hold. */
export function scopesWithheldFrom(role: UserRole, scopes: readonly string[]): string[] {
  return scopes.filter((scope) => withheld(role, scope));
}

// `llm:invoke` is a service account's (the gateway takes no user's token), so no user holds it, whatever the role.
function withheld(role: UserRole, scope: string): boolean {
  return scope === GATEWAY_SCOPE || (role !== 'admin' && isManagementScope(scope));
}
