import { defineCatalog } from './catalog';

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
