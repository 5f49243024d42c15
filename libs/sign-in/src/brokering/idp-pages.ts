import { escapeHtml, renderPage, type UiLocale } from '@fed/identity/internal';
import { type IdpMessage, idpText } from './messages';

/** The page of a sign-in through a tenant's provider that could not go on: what happened, what to do. */
export function idpErrorPage(locale: UiLocale, message: IdpMessage): string {
  const title = idpText(locale, 'title');
  return renderPage({
    locale,
    title,
    body: `<h1>${escapeHtml(title)}</h1>
<p class="error" role="alert">${escapeHtml(idpText(locale, message))}</p>`,
  });
}
