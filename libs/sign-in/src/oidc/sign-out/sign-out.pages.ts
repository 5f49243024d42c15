import { escapeHtml, renderPage, type UiLocale } from '@fed/identity/internal';
import { signOutText } from './messages';

export interface SignOutPage {
  locale: UiLocale;
  action: string;
  /** The form's hidden fields (CSRF token, the application's return, the chosen language). */
  hidden: Readonly<Record<string, string | undefined>>;
  clientName?: string;
  switcher?: (locale: UiLocale) => string;
}

function hiddenInputs(fields: SignOutPage['hidden']): string {
  return Object.entries(fields)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('\n');
}

export function signOutPage(view: SignOutPage): string {
  const text = (key: Parameters<typeof signOutText>[1]) => escapeHtml(signOutText(view.locale, key));
  const requestedBy = view.clientName
    ? `<p>${escapeHtml(signOutText(view.locale, 'signOutRequestedBy', { client: view.clientName }))}</p>\n`
    : '';
  return renderPage({
    locale: view.locale,
    title: signOutText(view.locale, 'signOutTitle'),
    switcher: view.switcher,
    body: `<h1>${text('signOutTitle')}</h1>
${requestedBy}<p>${text('signOutQuestion')}</p>
<p>${text('signOutExplained')}</p>
<form method="post" action="${escapeHtml(view.action)}">
${hiddenInputs(view.hidden)}
<div class="actions">
<button type="submit" name="decision" value="sign_out" autofocus>${text('signOutButton')}</button>
<button type="submit" name="decision" value="stay" class="secondary">${text('stayButton')}</button>
</div>
</form>`,
  });
}

export function signOutDonePage(locale: UiLocale, outcome: 'signed_out' | 'stayed'): string {
  const [title, body] =
    outcome === 'signed_out'
      ? (['signedOutTitle', 'signedOutBody'] as const)
      : (['stayedTitle', 'stayedBody'] as const);
  return renderPage({
    locale,
    title: signOutText(locale, title),
    body: `<h1>${escapeHtml(signOutText(locale, title))}</h1>
<p role="status">${escapeHtml(signOutText(locale, body))}</p>`,
  });
}
