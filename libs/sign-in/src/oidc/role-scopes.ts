import { GATEWAY_SCOPE, PLATFORM_SCOPE, isManagementScope } from '@fed/contracts';
import { type UserEntity } from '@fed/identity/internal';

/** What a user's scopes depend on, read afresh at consent, grant, code exchange and every refresh. */
export type ScopeHolder = Pick<UserEntity, 'role' | 'platformOperator'>;

/** Management scopes only while the user is `admin`; `platform:manage` only while also a platform operator. */
export function scopesHeldBy(user: ScopeHolder, scopes: readonly string[]): string[] {
  return scopes.filter((scope) => !withheld(user, scope));
}

export function scopesWithheldFrom(user: ScopeHolder, scopes: readonly string[]): string[] {
  return scopes.filter((scope) => withheld(user, scope));
}

// `llm:invoke` is a service account's (the gateway takes no user's token), so no user holds it, whatever the role.
// `platform:manage` is the platform's own accounts': an admin who is a platform operator (platformctl, realm).
function withheld(user: ScopeHolder, scope: string): boolean {
  if (scope === GATEWAY_SCOPE) return true;
  if (scope === PLATFORM_SCOPE) return !(user.role === 'admin' && user.platformOperator);
  return user.role !== 'admin' && isManagementScope(scope);
}
