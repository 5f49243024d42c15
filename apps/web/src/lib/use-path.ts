import { useCallback, useSyncExternalStore } from 'react';

const subscribe = (onChange: () => void) => {
  window.addEventListener('popstate', onChange);
  return () => window.removeEventListener('popstate', onChange);
};

/** The location's path and query, and a way to go elsewhere (history API; the server answers index.html for app paths). */
export function usePath(): [URL, (path: string, options?: { replace?: boolean }) => void] {
  const href = useSyncExternalStore(subscribe, () => window.location.pathname + window.location.search);
  const navigate = useCallback((next: string, options: { replace?: boolean } = {}) => {
    if (next === window.location.pathname + window.location.search) return;
    if (options.replace) window.history.replaceState(null, '', next);
    else window.history.pushState(null, '', next);
    window.dispatchEvent(new PopStateEvent('popstate'));
  }, []);
  return [new URL(href, window.location.origin), navigate];
}
