import { useId } from 'react';
import { isUiLocale } from '@fed/contracts/locales';
import { languageNames, uiLocales, useLocale } from '../i18n/locale';
import { useMessages } from '../i18n/messages';
import { preferencesText } from './messages';

/** The page's language; each option is named in its own language (and marked so, for screen readers). */
export function LanguageSelect() {
  const { locale, choose } = useLocale();
  const t = useMessages(preferencesText);
  const id = useId();
  return (
    <span className="preference">
      <label htmlFor={id}>{t.language}</label>
      <select id={id} value={locale} onChange={(event) => isUiLocale(event.target.value) && choose(event.target.value)}>
        {uiLocales.map((option) => (
          <option key={option} value={option} lang={option}>
            {languageNames[option]}
          </option>
        ))}
      </select>
    </span>
  );
}
