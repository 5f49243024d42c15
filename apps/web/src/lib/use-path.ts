import { useCallback, useSyncExternalStore } from 'react';

const subscribe = (onChange: () => void) => {
  window.addEventListener('popstate', onChange);
  return () => window.removeEventListener('popstate', onChange);
};

/** The location's path, and a way to go to another (history API; the server answers index.html for app paths). */
export function usePath(): [string, (path: string, options?: { replace?: boolean }) => void] {
  const path = useSyncExternalStore(subscribe, () => window.location.pathname);
  const navigate = useCallback((next: string, options: { replace?: boolean } = {}) => {
    if (next === window.location.pathname) return;
    if (options.replace) window.history.replaceState(null, '', next);
    else window.history.pushState(null, '', next);
    window.dispatchEvent(new PopStateEvent('popstate'));
  }, []);
  return [path, navigate];
}
