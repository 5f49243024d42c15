import type { User, UserManager } from 'oidc-client-ts';
import { type ReactNode, createContext, useContext, useEffect, useMemo, useRef, useState } from 'react';
import { type UiLocale, useLocale } from '../i18n/locale';
import { useMessages } from '../i18n/messages';
import { authText } from './messages';
import { CALLBACK_PATH, SIGNED_OUT_PATH } from './user-manager';

export type AuthState =
  | { status: 'loading' }
  | { status: 'signed-in'; user: User }
  | { status: 'signed-out' }
  | { status: 'error'; message: string };

interface Auth {
  state: AuthState;
  signIn(): Promise<void>;
  signOut(): Promise<void>;
  /** The current access token, refreshed when near its end. */
  accessToken(): Promise<string>;
}

const AuthContext = createContext<Auth | undefined>(undefined);

interface ReturnState {
  returnTo: string;
}

// The page's first step (finish a sign-in, or start one) runs once per page, even if React mounts twice.
const firstSteps = new WeakMap<UserManager, Promise<User | 'signed-out' | 'redirecting'>>();

// The login page opens in the app's language (`ui_locales`, document 1).
function firstStep(manager: UserManager, locale: UiLocale): Promise<User | 'signed-out' | 'redirecting'> {
  let step = firstSteps.get(manager);
  if (!step) {
    const { pathname, search } = window.location;
    step =
      pathname === CALLBACK_PATH
        ? manager.signinRedirectCallback().then((user) => {
            const returnTo = (user.state as ReturnState | undefined)?.returnTo ?? '/';
            window.history.replaceState(null, '', returnTo.startsWith('/') ? returnTo : '/');
            return user;
          })
        : pathname === SIGNED_OUT_PATH
          ? Promise.resolve('signed-out' as const)
          : // Tokens live in memory only: a new page signs in again, with no form while the provider's session lasts.
            manager
              .signinRedirect({ ui_locales: locale, state: { returnTo: pathname + search } satisfies ReturnState })
              .then(() => 'redirecting' as const);
    firstSteps.set(manager, step);
  }
  return step;
}

export function AuthProvider({ manager, children }: { manager: UserManager; children: ReactNode }) {
  const [state, setState] = useState<AuthState>({ status: 'loading' });
  const { locale } = useLocale();
  const t = useMessages(authText);
  // Read when used, so a change of language does not make a new `Auth` (whose users would start over).
  const language = useRef({ locale, t });
  useEffect(() => {
    language.current = { locale, t };
  }, [locale, t]);

  useEffect(() => {
    let live = true;
    const set = (next: AuthState) => {
      if (live) setState(next);
    };
    const signedIn = (user: User) => set({ status: 'signed-in', user });
    const failed = (error: unknown) =>
      set({ status: 'error', message: error instanceof Error ? error.message : String(error) });
    const signedOut = () => set({ status: 'signed-out' });
    manager.events.addUserLoaded(signedIn);
    manager.events.addUserSignedOut(signedOut);
    manager.events.addSilentRenewError(failed);

    firstStep(manager, language.current.locale)
      .then((step) => {
        if (step === 'signed-out') signedOut();
        else if (step !== 'redirecting') signedIn(step);
      })
      .catch(failed);
    return () => {
      live = false;
      manager.events.removeUserLoaded(signedIn);
      manager.events.removeUserSignedOut(signedOut);
      manager.events.removeSilentRenewError(failed);
    };
  }, [manager]);

  const auth = useMemo<Auth>(
    () => ({
      state,
      signIn: () =>
        manager.signinRedirect({ ui_locales: language.current.locale, state: { returnTo: '/' } satisfies ReturnState }),
      signOut: async () => {
        const user = await manager.getUser();
        await manager.signoutRedirect({
          id_token_hint: user?.id_token,
          extraQueryParams: { ui_locales: language.current.locale },
        });
      },
      accessToken: async () => {
        let user = await manager.getUser();
        if (user && (user.expires_in ?? 0) < 30) user = await manager.signinSilent();
        if (!user) throw new Error(language.current.t.notSignedIn);
        return user.access_token;
      },
    }),
    [manager, state],
  );
  return <AuthContext.Provider value={auth}>{children}</AuthContext.Provider>;
}

export function useAuth(): Auth {
  const auth = useContext(AuthContext);
  if (!auth) throw new Error('useAuth outside AuthProvider');
  return auth;
}
