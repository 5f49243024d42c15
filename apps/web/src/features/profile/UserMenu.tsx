import { useAuth } from '../../lib/auth/auth-context';
import { useMessages } from '../../lib/i18n/messages';
import { LanguageSelect } from '../../lib/preferences/LanguageSelect';
import { ThemeSelect } from '../../lib/preferences/ThemeSelect';
import { profileText } from './messages';
import { useMe } from './use-me';

/** Who is signed in, the page's language and theme, and signing out. */
export function UserMenu() {
  const auth = useAuth();
  const me = useMe();
  const t = useMessages(profileText);
  const name = me.data ? (me.data.displayName ?? me.data.username ?? me.data.email) : undefined;
  return (
    <div className="user-menu">
      {name && (
        <span className="user-name" data-testid="user-name">
          {name}
        </span>
      )}
      {me.error && <span role="alert">{me.error.message}</span>}
      <div className="preferences" role="group" aria-label={t.preferences}>
        <LanguageSelect />
        <ThemeSelect />
      </div>
      <button type="button" onClick={() => void auth.signOut()}>
        {t.signOut}
      </button>
    </div>
  );
}
