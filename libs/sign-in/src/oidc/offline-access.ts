import { OFFLINE_ACCESS_SCOPE } from '@fed/contracts';

/**
 * oidc-provider drops `offline_access` without `prompt=consent`, but our refresh-capable code clients always get
 * a refresh token, so the scope is passed under this name, which the provider treats like any other scope.
 */
export const PROVIDER_OFFLINE_ACCESS = 'fed:offline_access';

/** Dropped for a client that may not refresh. */
export function toProviderScope(scope: string, mayRefresh: boolean): string {
  const names = scope.split(' ').filter(Boolean);
  if (!names.includes(OFFLINE_ACCESS_SCOPE)) return scope;
  return names
    .flatMap((name) => (name !== OFFLINE_ACCESS_SCOPE ? [name] : mayRefresh ? [PROVIDER_OFFLINE_ACCESS] : []))
    .join(' ');
}

export function fromProviderScope(names: readonly string[]): string[] {
  return names.map((name) => (name === PROVIDER_OFFLINE_ACCESS ? OFFLINE_ACCESS_SCOPE : name));
}
