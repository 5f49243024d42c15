import { defineCatalog } from './catalog';
import { type UiLocale } from './locales';

/** Each language named in itself, as a language switcher shows it. */
export const languageNames: Readonly<Record<UiLocale, string>> = {
  ja: '日本語',
  en: 'English',
  fr: 'Français',
  es: 'Español',
  th: 'ไทย',
  id: 'Bahasa Indonesia',
  ar: 'العربية',
  'zh-CN': '简体中文',
  'zh-TW': '繁體中文',
  'pt-BR': 'Português (Brasil)',
  'de-DE': 'Deutsch',
  'it-IT': 'Italiano',
  ko: '한국어',
  vi: 'Tiếng Việt',
};

export const shellText = defineCatalog('page-shell', {
  ja: { languages: '言語' },
  en: { languages: 'Language' },
  fr: { languages: 'Langue' },
  es: { languages: 'Idioma' },
  th: { languages: 'ภาษา' },
  id: { languages: 'Bahasa' },
  ar: { languages: 'اللغة' },
  'zh-CN': { languages: '语言' },
  'zh-TW': { languages: '語言' },
  'pt-BR': { languages: 'Idioma' },
  'de-DE': { languages: 'Sprache' },
  'it-IT': { languages: 'Lingua' },
  ko: { languages: '언어' },
  vi: { languages: 'Ngôn ngữ' },
});
