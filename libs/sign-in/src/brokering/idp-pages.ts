import { escapeHtml, renderPage, type UiLocale } from '@fed/identity/internal';
import { type IdpMessage, idpText } from './messages';

export function idpErrorPage(locale: UiLocale, message: IdpMessage): string {
  const title = idpText(locale, 'title');
  return renderPage({
    locale,
    title,
    body: `<h1>${escapeHtml(title)}</h1>
<p class="error" role="alert">${escapeHtml(idpText(locale, message))}</p>`,
  });
}
