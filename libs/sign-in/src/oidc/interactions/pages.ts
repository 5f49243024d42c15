import { OFFLINE_ACCESS_SCOPE, isScope } from '@fed/contracts';
import { escapeHtml, negotiateLocale, renderPage, type UiLocale } from '@fed/identity/internal';
import { type RegisteredBy } from '../registration/client-metadata';
import { scopeText, signInText } from './messages';

// No script; every value is escaped where it enters the HTML.

type Switcher = (locale: UiLocale) => string;

function hiddenFields(csrf: string, chosenLocale: UiLocale | undefined): string {
  const language = chosenLocale ? `\n<input type="hidden" name="lang" value="${escapeHtml(chosenLocale)}">` : '';
  return `<input type="hidden" name="csrf" value="${escapeHtml(csrf)}">${language}`;
}

export interface LoginPage {
  locale: UiLocale;
  chosenLocale?: UiLocale;
  action: string;
  csrf: string;
  clientName: string;
  login?: string;
  error?: string;
  notice?: string;
  signUpUrl?: string;
  resetUrl?: string;
  moreLinks?: readonly { href: string; text: string }[];
  switcher?: Switcher;
}

function loginLinks(view: LoginPage): string {
  const links = [
    view.signUpUrl &&
      `<li><a href="${escapeHtml(view.signUpUrl)}">${escapeHtml(signInText(view.locale, 'signUpLink'))}</a></li>`,
    view.resetUrl &&
      `<li><a href="${escapeHtml(view.resetUrl)}">${escapeHtml(signInText(view.locale, 'resetLink'))}</a></li>`,
    ...(view.moreLinks ?? []).map((link) => `<li><a href="${escapeHtml(link.href)}">${escapeHtml(link.text)}</a></li>`),
  ].filter(Boolean);
  if (links.length === 0) return '';
  return `\n<nav aria-label="${escapeHtml(signInText(view.locale, 'otherLinks'))}">
<ul class="links">
${links.join('\n')}
</ul>
</nav>`;
}

export function loginPage(view: LoginPage): string {
  const text = (key: Parameters<typeof signInText>[1]) => escapeHtml(signInText(view.locale, key));
  // An error is announced (role="alert") and described on both fields; the first field takes the focus.
  const error = view.error ? `<p id="form-error" class="error" role="alert">${escapeHtml(view.error)}</p>\n` : '';
  const invalid = view.error ? ' aria-invalid="true" aria-describedby="form-error"' : '';
  const notice = view.notice ? `<p class="notice" role="status">${escapeHtml(view.notice)}</p>\n` : '';
  return renderPage({
    locale: view.locale,
    title: signInText(view.locale, 'signInTitle'),
    switcher: view.switcher,
    body: `<h1>${text('signInTitle')}</h1>
<p>${escapeHtml(signInText(view.locale, 'signInTo', { client: view.clientName }))}</p>
${notice}${error}<form method="post" action="${escapeHtml(view.action)}">
${hiddenFields(view.csrf, view.chosenLocale)}
<label for="login">${text('loginLabel')}</label>
<input id="login" name="login" type="text" autocomplete="username" autocapitalize="none" spellcheck="false" required maxlength="254" autofocus value="${escapeHtml(view.login ?? '')}"${invalid}>
<label for="password">${text('passwordLabel')}</label>
<input id="password" name="password" type="password" autocomplete="current-password" maxlength="256"${invalid}>
<button type="submit">${text('signInButton')}</button>
</form>${loginLinks(view)}`,
  });
}

export interface ConsentPage {
  locale: UiLocale;
  chosenLocale?: UiLocale;
  action: string;
  csrf: string;
  clientName: string;
  scopes: readonly string[];
  switcher?: Switcher;
  /** Named by its document's URL, or called unverified with where it sends back. */
  registeredBy?: RegisteredBy;
}

function registeredByLine({ locale, clientName, registeredBy }: ConsentPage): string {
  if (!registeredBy) return '';
  const line =
    registeredBy.kind === 'metadata_document'
      ? signInText(locale, 'consentClientDocument', {
          client: clientName,
          host: new URL(registeredBy.url).host,
          url: registeredBy.url,
        })
      : signInText(locale, 'consentClientUnverified', { host: registeredBy.redirectHost });
  return `<p id="consent-client">${escapeHtml(line)}</p>\n`;
}

function scopeItem(locale: UiLocale, scope: string): string {
  // Anything outside the spec's table and `offline_access` is shown by name only.
  const description = isScope(scope) || scope === OFFLINE_ACCESS_SCOPE ? scopeText(locale, scope) : scope;
  return `<li>${escapeHtml(description)} (<code>${escapeHtml(scope)}</code>)</li>`;
}

export function consentPage(view: ConsentPage): string {
  const text = (key: Parameters<typeof signInText>[1]) => escapeHtml(signInText(view.locale, key));
  return renderPage({
    locale: view.locale,
    title: signInText(view.locale, 'consentTitle'),
    switcher: view.switcher,
    body: `<h1>${text('consentTitle')}</h1>
<p id="consent-asks">${escapeHtml(signInText(view.locale, 'consentAsks', { client: view.clientName }))}</p>
${registeredByLine(view)}<ul aria-labelledby="consent-asks">
${view.scopes.map((scope) => scopeItem(view.locale, scope)).join('\n')}
</ul>
<form method="post" action="${escapeHtml(view.action)}">
${hiddenFields(view.csrf, view.chosenLocale)}
<div class="actions">
<button type="submit" name="decision" value="allow">${text('allow')}</button>
<button type="submit" name="decision" value="deny" class="secondary">${text('deny')}</button>
</div>
</form>`,
  });
}

export type ErrorMessage =
  | 'clientUnavailable'
  | 'interactionExpired'
  | 'interactionMismatch'
  | 'stepDone'
  | 'formUnreadable'
  | 'formExpired'
  | 'requestInvalid'
  | 'serverError';

export interface ErrorPage {
  locale: UiLocale;
  /** The OAuth error code, shown for support. */
  error: string;
  message: ErrorMessage;
}

export function errorPage(view: ErrorPage): string {
  return renderPage({
    locale: view.locale,
    title: signInText(view.locale, 'errorTitle'),
    body: `<h1>${escapeHtml(signInText(view.locale, 'errorTitle'))}</h1>
<p>${escapeHtml(signInText(view.locale, view.message))}</p>
<p>${escapeHtml(signInText(view.locale, 'errorCode', { code: view.error }))}</p>`,
  });
}

/** For failures oidc-provider renders itself: its description is English protocol detail, so show our message. */
export function providerErrorPage(failure: { error?: string; uiLocales?: unknown; acceptLanguage?: string }): string {
  const error = failure.error ?? 'server_error';
  return errorPage({
    locale: negotiateLocale({ uiLocales: failure.uiLocales, acceptLanguage: failure.acceptLanguage }),
    error,
    message: error === 'server_error' ? 'serverError' : 'requestInvalid',
  });
}
