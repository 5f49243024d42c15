import type { AuthState } from './auth-context';

/** The scopes the provider granted (the token response's `scope`): a user who is not an admin gets none of the console's. */
export function grantedScopes(state: AuthState): ReadonlySet<string> {
  return new Set(state.status === 'signed-in' ? (state.user.scope ?? '').split(' ').filter(Boolean) : []);
}

/** True when the token holds at least one of `anyOf` (the admin API's rule: "users:read or users:manage"). */
export function holdsAny(scopes: ReadonlySet<string>, anyOf: readonly string[]): boolean {
  return anyOf.some((scope) => scopes.has(scope));
}
