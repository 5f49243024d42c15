import { type UiLocale, isRightToLeft, languageNames, uiLocales } from '@fed/contracts';
import { shellText } from './messages';

// No script, every value escaped, and a CSP that allows only inline style. Shared classes: `error`
// (with role="alert"), `notice`, `actions`, `secondary`, `links`.

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"'`]/g, (character) => `&#${character.charCodeAt(0)};`);
}

export const PAGE_SECURITY_HEADERS = {
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
  'X-Frame-Options': 'DENY',
  'Cache-Control': 'no-store',
  'Content-Type': 'text/html; charset=utf-8',
} as const;

export interface PageView {
  locale: UiLocale;
  title: string;
  /** Trusted HTML: the page escapes every value it puts in. */
  body: string;
  /** The URL of this same page in another language; no switcher when absent. */
  switcher?: (locale: UiLocale) => string;
}

// WCAG AA contrast on white; logical properties keep the layout right for Arabic.
const style = `
*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,"Segoe UI","Noto Sans",sans-serif;line-height:1.5;max-width:28rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b;background:#fff}
h1{font-size:1.5rem;margin:0 0 1rem}
label{display:block;margin:1rem 0 .25rem;font-weight:600}
input{width:100%;padding:.5rem;font-size:1rem;border:1px solid #6b6b6b;border-radius:4px;color:#1b1b1b;background:#fff}
button{margin-block-start:1rem;margin-inline-end:.5rem;padding:.5rem 1.25rem;font-size:1rem;border:1px solid #0b4fb3;border-radius:4px;background:#0b4fb3;color:#fff;cursor:pointer}
button.secondary{background:#fff;color:#0b4fb3}
a{color:#0b4fb3}
:focus-visible{outline:3px solid #b35900;outline-offset:2px}
.error{color:#a40000;border:1px solid #a40000;border-radius:4px;padding:.5rem .75rem}
.error:focus{outline:3px solid #b35900}
.notice{color:#1b1b1b;background:#eef3fb;border-radius:4px;padding:.5rem .75rem}
.actions{display:flex;flex-wrap:wrap}
.links{list-style:none;padding:0;margin:1.5rem 0 0}
.links li{margin:.25rem 0}
footer{margin-block-start:2.5rem;border-block-start:1px solid #d0d0d0;padding-block-start:.75rem;font-size:.875rem}
footer ul{list-style:none;padding:0;margin:0;display:flex;flex-wrap:wrap;gap:.25rem 1rem}
`;

function languageSwitcher(current: UiLocale, urlOf: (locale: UiLocale) => string): string {
  const items = uiLocales.map((locale) => {
    const name = escapeHtml(languageNames[locale]);
    const attributes = `lang="${locale}" dir="${isRightToLeft(locale) ? 'rtl' : 'ltr'}"`;
    if (locale === current) return `<li><span ${attributes} aria-current="true">${name}</span></li>`;
    return `<li><a href="${escapeHtml(urlOf(locale))}" hreflang="${locale}" ${attributes}>${name}</a></li>`;
  });
  return `<footer>
<nav aria-label="${escapeHtml(shellText(current, 'languages'))}">
<ul>
${items.join('\n')}
</ul>
</nav>
</footer>`;
}

export function renderPage(view: PageView): string {
  const footer = view.switcher ? `\n${languageSwitcher(view.locale, view.switcher)}` : '';
  return `<!doctype html>
<html lang="${view.locale}" dir="${isRightToLeft(view.locale) ? 'rtl' : 'ltr'}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(view.title)}</title>
<style>${style}</style>
</head>
<body>
<main>
${view.body}
</main>${footer}
</body>
</html>
`;
}
