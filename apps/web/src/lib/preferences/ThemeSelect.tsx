import { useId } from 'react';
import { useMessages } from '../i18n/messages';
import { type ThemeChoice, themeChoices, useTheme } from '../theme';
import { preferencesText } from './messages';

/** System, light or dark. */
export function ThemeSelect() {
  const { choice, choose } = useTheme();
  const t = useMessages(preferencesText);
  const id = useId();
  return (
    <span className="preference">
      <label htmlFor={id}>{t.theme}</label>
      <select id={id} value={choice} onChange={(event) => choose(event.target.value as ThemeChoice)}>
        {themeChoices.map((option) => (
          <option key={option} value={option}>
            {t[option]}
          </option>
        ))}
      </select>
    </span>
  );
}
