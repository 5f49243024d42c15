import { isManagementScope } from '@fed/contracts';
import { type UserRole } from '../users/user.entity';

/**
 * The role rule: an application's user holds its management scopes (`users:*`, `logs:read`,
 * `sharedmemory:query`, `master:manage`) only while the user's role is `admin`; every other scope of
 * the application whatever the role. Applied when consent is asked, when the grant is made, at the
 * code exchange and at every refresh.
 */
export function scopesHeldBy(role: UserRole, scopes: readonly string[]): string[] {
  return role === 'admin' ? [...scopes] : scopes.filter((scope) => !isManagementScope(scope));
}

/** The scopes of `scopes` that a user of `role` may not hold. */
export function scopesWithheldFrom(role: UserRole, scopes: readonly string[]): string[] {
  return role === 'admin' ? [] : scopes.filter(isManagementScope);
}
