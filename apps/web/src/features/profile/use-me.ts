import { useQuery } from '@tanstack/react-query';
import { apiJson } from '../../lib/api';
import { useAuth } from '../../lib/auth/auth-context';
import { webEdition } from '../../lib/web-config';

/** `GET /api/v1/users/me` (docs/users.md): read fresh, so a role change shows at once. */
export interface Me {
  userId: string;
  email: string;
  username?: string;
  displayName?: string;
  role: string;
}

export function useMe() {
  const auth = useAuth();
  return useQuery({
    queryKey: ['me'],
    // The Marketplace edition has no user information route (404): its admin panel does without.
    enabled: auth.state.status === 'signed-in' && webEdition() !== 'marketplace',
    queryFn: async () => apiJson<Me>('/api/v1/users/me', await auth.accessToken()),
  });
}
