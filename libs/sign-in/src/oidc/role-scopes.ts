import { GATEWAY_SCOPE, PLATFORM_SCOPE, isManagementScope } from '@fed/contracts';
import { type UserRole } from '@fed/identity/internal';

/** Management scopes only while the user is `admin`; applied at consent, grant, code exchange and every refresh. */
export function scopesHeldBy(role: UserRole, scopes: readonly string[]): string[] {
  return scopes.filter((scope) => !withheld(role, scope));
}

export function scopesWithheldFrom(role: UserRole, scopes: readonly string[]): string[] {
  return scopes.filter((scope) => withheld(role, scope));
}

// `llm:invoke` is a service account's (the gateway takes no user's token), so no user holds it, whatever the role.
// `platform:manage` is the platform operator's: withheld from every user until operator accounts exist.
function withheld(role: UserRole, scope: string): boolean {
  return scope === GATEWAY_SCOPE || scope === PLATFORM_SCOPE || (role !== 'admin' && isManagementScope(scope));
}
