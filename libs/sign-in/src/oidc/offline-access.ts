import { OFFLINE_ACCESS_SCOPE } from '@fed/contracts';

/**
 * oidc-provider drops a requested `offline_access` unless the request also says `prompt=consent`
 * (OpenID Connect Core 11 lets other conditions stand in). Here a code client that may refresh gets a
 * refresh token whether it asks or not, so the scope is granted whenever it asks: the authorization
 * request hands it to the provider under this name, which the provider treats as any other scope (the
 * grant covers it, the code carries it), and `fromProviderScope` names it `offline_access` again.
 */
export const PROVIDER_OFFLINE_ACCESS = 'fed:offline_access';

/** A request's scope as the provider is given it: `offline_access` renamed, or dropped for a client that may not refresh. */
export function toProviderScope(scope: string, mayRefresh: boolean): string {
  const names = scope.split(' ').filter(Boolean);
  if (!names.includes(OFFLINE_ACCESS_SCOPE)) return scope;
  return names
    .flatMap((name) => (name !== OFFLINE_ACCESS_SCOPE ? [name] : mayRefresh ? [PROVIDER_OFFLINE_ACCESS] : []))
    .join(' ');
}

/** The names of a scope that went through the provider, `offline_access` as the client asked for it. */
export function fromProviderScope(names: readonly string[]): string[] {
  return names.map((name) => (name === PROVIDER_OFFLINE_ACCESS ? OFFLINE_ACCESS_SCOPE : name));
}
