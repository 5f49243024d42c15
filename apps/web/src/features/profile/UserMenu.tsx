import { useAuth } from '../../lib/auth/auth-context';
import { useMe } from './use-me';

export function UserMenu() {
  const auth = useAuth();
  const me = useMe();
  const name = me.data ? (me.data.displayName ?? me.data.username ?? me.data.email) : undefined;
  return (
    <div className="user-menu">
      {name && (
        <span className="user-name" data-testid="user-name">
          {name}
        </span>
      )}
      {me.error && <span role="alert">{me.error.message}</span>}
      <button type="button" onClick={() => void auth.signOut()}>
        Sign out
      </button>
    </div>
  );
}
