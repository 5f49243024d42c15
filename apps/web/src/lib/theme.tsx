import {
  type ReactNode,
  createContext,
  useCallback,
  useContext,
  useLayoutEffect,
  useMemo,
  useState,
  useSyncExternalStore,
} from 'react';

export const themeChoices = ['system', 'light', 'dark'] as const;
export type ThemeChoice = (typeof themeChoices)[number];
export type Theme = 'light' | 'dark';

/** The person's choice, kept across pages (a preference, not a credential). */
const CHOICE_KEY = 'fed.theme';
const DARK_QUERY = '(prefers-color-scheme: dark)';

interface ThemeState {
  choice: ThemeChoice;
  /** What the page shows: the choice, or the system's while the choice is `system`. */
  theme: Theme;
  choose(choice: ThemeChoice): void;
}

const ThemeContext = createContext<ThemeState | undefined>(undefined);

function readChoice(): ThemeChoice {
  try {
    const chosen = window.localStorage.getItem(CHOICE_KEY);
    return (themeChoices as readonly (string | null)[]).includes(chosen) ? (chosen as ThemeChoice) : 'system';
  } catch {
    return 'system';
  }
}

const subscribeToSystem = (onChange: () => void) => {
  const query = window.matchMedia(DARK_QUERY);
  query.addEventListener('change', onChange);
  return () => query.removeEventListener('change', onChange);
};
const systemTheme = (): Theme => (window.matchMedia(DARK_QUERY).matches ? 'dark' : 'light');

/**
 * The page's theme on `<html data-theme>` and its `color-scheme`, always one of `light` or `dark` (embedded UI
 * is told the theme from that attribute, so it is never left unset or `system`).
 */
export function ThemeProvider({ children }: { children: ReactNode }) {
  const [choice, setChoice] = useState<ThemeChoice>(readChoice);
  const system = useSyncExternalStore(subscribeToSystem, systemTheme);
  const theme = choice === 'system' ? system : choice;
  // Before paint, so a dark page never flashes light.
  useLayoutEffect(() => {
    document.documentElement.dataset.theme = theme;
    document.documentElement.style.colorScheme = theme;
  }, [theme]);
  const choose = useCallback((next: ThemeChoice) => {
    try {
      window.localStorage.setItem(CHOICE_KEY, next);
    } catch {
      // Storage refused (a private window): the choice lasts for this page.
    }
    setChoice(next);
  }, []);
  const state = useMemo(() => ({ choice, theme, choose }) satisfies ThemeState, [choice, theme, choose]);
  return <ThemeContext.Provider value={state}>{children}</ThemeContext.Provider>;
}

export function useTheme(): ThemeState {
  const state = useContext(ThemeContext);
  if (!state) throw new Error('useTheme outside ThemeProvider');
  return state;
}
