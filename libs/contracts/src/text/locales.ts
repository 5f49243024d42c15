/** The languages of `ui_locales` (spec document 1) and of the web app; `ja` is the default. */
export const uiLocales = [
  'ja',
  'en',
  'fr',
  'es',
  'th',
  'id',
  'ar',
  'zh-CN',
  'zh-TW',
  'pt-BR',
  'de-DE',
  'it-IT',
  'ko',
  'vi',
] as const;
export type UiLocale = (typeof uiLocales)[number];

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

export const defaultLocale: UiLocale = 'ja';

// A bare `zh` or a Traditional region must not fall to the first `zh-*` entry by accident.
const traditionalChinese = new Set(['zh-tw', 'zh-hk', 'zh-mo', 'zh-hant']);

export function matchLocale(tag: string): UiLocale | undefined {
  const wanted = tag.trim().toLowerCase();
  if (wanted === '' || wanted.length > 35) return undefined;
  const exact = uiLocales.find((locale) => locale.toLowerCase() === wanted);
  if (exact) return exact;
  if (wanted.startsWith('zh')) {
    const prefix = wanted.split('-').slice(0, 2).join('-');
    return traditionalChinese.has(prefix) ? 'zh-TW' : 'zh-CN';
  }
  const language = wanted.split('-')[0];
  return uiLocales.find((locale) => locale.split('-')[0].toLowerCase() === language);
}

/** True for one of the 14 tags exactly as the spec spells them (a switcher link's value). */
export function isUiLocale(value: unknown): value is UiLocale {
  return typeof value === 'string' && (uiLocales as readonly string[]).includes(value);
}

function fromUiLocales(value: unknown): UiLocale | undefined {
  if (typeof value !== 'string') return undefined;
  for (const tag of value.split(' ').slice(0, 20)) {
    const locale = matchLocale(tag);
    if (locale) return locale;
  }
  return undefined;
}

/** The supported language of highest weight in an `Accept-Language` header (RFC 9110 q-values). */
function fromAcceptLanguage(header: string | undefined): UiLocale | undefined {
  if (!header) return undefined;
  const ranges = header
    .slice(0, 1000)
    .split(',')
    .slice(0, 30)
    .map((range, order) => {
      const [tag, ...parameters] = range.split(';');
      const q = parameters.map((parameter) => /^\s*q=([0-9.]+)\s*$/i.exec(parameter)).find(Boolean);
      const weight = q ? Number(q[1]) : 1;
      return { tag: tag.trim(), weight: Number.isFinite(weight) ? weight : 0, order };
    })
    .filter((range) => range.weight > 0 && range.tag !== '*')
    .sort((a, b) => b.weight - a.weight || a.order - b.order);
  for (const range of ranges) {
    const locale = matchLocale(range.tag);
    if (locale) return locale;
  }
  return undefined;
}

/** Only one of the 14 tags is trusted from the switcher; then `ui_locales`, `Accept-Language`, `ja`. */
export function negotiateLocale(from: { chosen?: unknown; uiLocales?: unknown; acceptLanguage?: string }): UiLocale {
  if (isUiLocale(from.chosen)) return from.chosen;
  return fromUiLocales(from.uiLocales) ?? fromAcceptLanguage(from.acceptLanguage) ?? defaultLocale;
}

export function isRightToLeft(locale: UiLocale): boolean {
  return locale === 'ar';
}
