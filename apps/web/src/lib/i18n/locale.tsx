import {
  type UiLocale,
  isRightToLeft,
  isUiLocale,
  languageNames,
  negotiateLocale,
  uiLocales,
} from '@fed/contracts/locales';
import { type ReactNode, createContext, useCallback, useContext, useEffect, useMemo, useState } from 'react';

export { type UiLocale, languageNames, uiLocales };

/** The person's choice of language, kept across pages (a preference, not a credential). */
const CHOICE_KEY = 'fed.locale';

interface LocaleState {
  locale: UiLocale;
  dir: 'ltr' | 'rtl';
  choose(locale: UiLocale): void;
}

const LocaleContext = createContext<LocaleState | undefined>(undefined);

function readChoice(): UiLocale | undefined {
  try {
    const chosen = window.localStorage.getItem(CHOICE_KEY);
    return isUiLocale(chosen) ? chosen : undefined;
  } catch {
    return undefined;
  }
}

/** The chosen language, else the browser's first supported one (as the sign-in pages negotiate), else `ja`. */
export function initialLocale(): UiLocale {
  return negotiateLocale({ chosen: readChoice(), acceptLanguage: navigator.languages.join(',') });
}

export function LocaleProvider({ children, initial }: { children: ReactNode; initial?: UiLocale }) {
  const [locale, setLocale] = useState<UiLocale>(() => initial ?? initialLocale());
  const dir = isRightToLeft(locale) ? 'rtl' : 'ltr';
  useEffect(() => {
    document.documentElement.lang = locale;
    document.documentElement.dir = dir;
  }, [locale, dir]);
  const choose = useCallback((next: UiLocale) => {
    try {
      window.localStorage.setItem(CHOICE_KEY, next);
    } catch {
      // Storage refused (a private window): the choice lasts for this page.
    }
    setLocale(next);
  }, []);
  const state = useMemo(() => ({ locale, dir, choose }) satisfies LocaleState, [locale, dir, choose]);
  return <LocaleContext.Provider value={state}>{children}</LocaleContext.Provider>;
}

export function useLocale(): LocaleState {
  const state = useContext(LocaleContext);
  if (!state) throw new Error('useLocale outside LocaleProvider');
  return state;
}
