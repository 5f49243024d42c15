import {
  type AccountContext,
  accountPaths,
  accountUrl,
  escapeHtml,
  linkLifetimes,
  renderPage,
  signInUrl,
  type UiLocale,
} from '@fed/identity/internal';
import { type FormProblem } from './account-rules';
import { accountText } from './messages';
import { type StrengthProblem } from './password-strength';

// No script; values are escaped where they enter the HTML.

type Key = Parameters<typeof accountText>[1];
type Switcher = (locale: UiLocale) => string;

export interface PageLink {
  href: string;
  text: Key;
}

interface FormView {
  context: AccountContext;
  action: string;
  csrf: string;
  switcher?: Switcher;
  /** Field values to show again (never a password). */
  values?: { email?: string; username?: string };
  problems?: readonly FormProblem[];
  alert?: string;
}

const strengthKeys: Record<StrengthProblem, Key> = {
  keyboard: 'weakKeyboard',
  repeat: 'weakRepeat',
  sequence: 'weakSequence',
  dates: 'weakDates',
  common: 'weakCommon',
  words: 'weakWords',
  personal: 'weakPersonal',
};

const problemKeys: Record<FormProblem['problem'], Key> = {
  invalid_email: 'invalidEmail',
  organization_domain: 'organizationDomain',
  invalid_username: 'invalidUsername',
  username_taken: 'usernameTaken',
  password_rules: 'passwordRules',
  password_weak: 'passwordWeak',
};

function problemMessages(locale: UiLocale, problem: FormProblem): string[] {
  const lines = [accountText(locale, problemKeys[problem.problem])];
  if (problem.problem === 'password_weak') {
    if (problem.strength) lines.push(accountText(locale, strengthKeys[problem.strength]));
    lines.push(accountText(locale, 'strongerHint'));
  }
  return lines;
}

function alertOf(view: FormView): string {
  const { locale } = view.context;
  const lines = view.alert
    ? [view.alert]
    : (view.problems ?? []).flatMap((problem) => problemMessages(locale, problem));
  if (lines.length === 0) return '';
  return `<div id="form-error" class="error" role="alert">${lines.map((line) => `<p>${escapeHtml(line)}</p>`).join('')}</div>\n`;
}

function hiddenFields(view: FormView, token?: string): string {
  const fields: [string, string][] = [
    ['csrf', view.csrf],
    ['lang', view.context.locale],
    ...(view.context.interaction ? [['interaction', view.context.interaction] as [string, string]] : []),
    ...(token ? [['token', token] as [string, string]] : []),
  ];
  return fields.map(([name, value]) => `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`).join('\n');
}

interface FieldSpec {
  name: 'email' | 'username' | 'password';
  label: Key;
  type: 'email' | 'text' | 'password';
  autocomplete: string;
  hint?: Key;
  value?: string;
  maxLength: number;
  autofocus?: boolean;
}

function field(view: FormView, spec: FieldSpec): string {
  const { locale } = view.context;
  const invalid = (view.problems ?? []).some((problem) => problem.field === spec.name);
  const hintId = `${spec.name}-hint`;
  const describedBy = [...(invalid ? ['form-error'] : []), ...(spec.hint ? [hintId] : [])].join(' ');
  const attributes = [
    `id="${spec.name}"`,
    `name="${spec.name}"`,
    `type="${spec.type}"`,
    `autocomplete="${spec.autocomplete}"`,
    'required',
    `maxlength="${spec.maxLength}"`,
    ...(spec.type === 'password' ? ['minlength="8"'] : ['autocapitalize="none"', 'spellcheck="false"']),
    ...(spec.value !== undefined ? [`value="${escapeHtml(spec.value)}"`] : []),
    ...(spec.autofocus ? ['autofocus'] : []),
    ...(invalid ? ['aria-invalid="true"'] : []),
    ...(describedBy ? [`aria-describedby="${describedBy}"`] : []),
  ];
  const hint = spec.hint ? `\n<p id="${hintId}" class="hint">${escapeHtml(accountText(locale, spec.hint))}</p>` : '';
  return `<label for="${spec.name}">${escapeHtml(accountText(locale, spec.label))}</label>
<input ${attributes.join(' ')}>${hint}`;
}

function linksOf(locale: UiLocale, links: readonly PageLink[]): string {
  if (links.length === 0) return '';
  const items = links.map(
    (link) => `<li><a href="${escapeHtml(link.href)}">${escapeHtml(accountText(locale, link.text))}</a></li>`,
  );
  return `\n<nav aria-label="${escapeHtml(accountText(locale, 'otherLinks'))}">
<ul class="links">
${items.join('\n')}
</ul>
</nav>`;
}

export function accountLinks(context: AccountContext, others: readonly ('signUp' | 'resend' | 'forgot')[]): PageLink[] {
  const back = signInUrl(context);
  const keys = { signUp: 'signUpLink', resend: 'resendLink', forgot: 'forgotLink' } as const;
  return [
    ...(back ? [{ href: back, text: 'backToSignIn' as const }] : []),
    ...others.map((page) => ({ href: accountUrl(accountPaths[page], context), text: keys[page] })),
  ];
}

function formPage(view: FormView, title: Key, content: string, links: readonly PageLink[]): string {
  const { locale } = view.context;
  return renderPage({
    locale,
    title: accountText(locale, title),
    switcher: view.switcher,
    body: `<h1>${escapeHtml(accountText(locale, title))}</h1>
${content}${linksOf(locale, links)}`,
  });
}

export function signUpPage(view: FormView): string {
  const { locale } = view.context;
  const values = view.values ?? {};
  return formPage(
    view,
    'signUpTitle',
    `<p>${escapeHtml(accountText(locale, 'signUpIntro'))}</p>
${alertOf(view)}<form method="post" action="${escapeHtml(view.action)}">
${hiddenFields(view)}
${field(view, { name: 'email', label: 'emailLabel', type: 'email', autocomplete: 'email', value: values.email, maxLength: 254, autofocus: true })}
${field(view, { name: 'username', label: 'usernameLabel', type: 'text', autocomplete: 'username', hint: 'usernameHint', value: values.username, maxLength: 64 })}
${field(view, { name: 'password', label: 'passwordLabel', type: 'password', autocomplete: 'new-password', hint: 'passwordHint', maxLength: 256 })}
<button type="submit">${escapeHtml(accountText(locale, 'signUpButton'))}</button>
</form>`,
    accountLinks(view.context, ['resend', 'forgot']),
  );
}

export function emailFormPage(view: FormView & { purpose: 'resend' | 'forgot' }): string {
  const { locale } = view.context;
  const [title, intro] =
    view.purpose === 'resend' ? (['resendTitle', 'resendIntro'] as const) : (['forgotTitle', 'forgotIntro'] as const);
  return formPage(
    view,
    title,
    `<p>${escapeHtml(accountText(locale, intro))}</p>
${alertOf(view)}<form method="post" action="${escapeHtml(view.action)}">
${hiddenFields(view)}
${field(view, { name: 'email', label: 'emailLabel', type: 'email', autocomplete: 'email', value: view.values?.email, maxLength: 254, autofocus: true })}
<button type="submit">${escapeHtml(accountText(locale, 'sendLinkButton'))}</button>
</form>`,
    accountLinks(view.context, view.purpose === 'resend' ? ['signUp'] : ['signUp', 'resend']),
  );
}

/** A button, so a mail scanner fetching the link confirms nothing. */
export function verifyPage(view: FormView & { token: string }): string {
  const { locale } = view.context;
  return formPage(
    view,
    'verifyTitle',
    `<p>${escapeHtml(accountText(locale, 'verifyIntro'))}</p>
${alertOf(view)}<form method="post" action="${escapeHtml(view.action)}">
${hiddenFields(view, view.token)}
<button type="submit">${escapeHtml(accountText(locale, 'verifyButton'))}</button>
</form>`,
    [],
  );
}

export function resetPage(view: FormView & { token: string }): string {
  const { locale } = view.context;
  return formPage(
    view,
    'resetTitle',
    `${alertOf(view)}<form method="post" action="${escapeHtml(view.action)}">
${hiddenFields(view, view.token)}
${field(view, { name: 'password', label: 'newPasswordLabel', type: 'password', autocomplete: 'new-password', hint: 'passwordHint', maxLength: 256, autofocus: true })}
<button type="submit">${escapeHtml(accountText(locale, 'resetButton'))}</button>
</form>`,
    [],
  );
}

export interface MessageView {
  context: AccountContext;
  title: Key;
  /** Already in the page's language. */
  paragraphs: readonly string[];
  links: readonly PageLink[];
  switcher?: Switcher;
}

export function messagePage(view: MessageView): string {
  const { locale } = view.context;
  return renderPage({
    locale,
    title: accountText(locale, view.title),
    switcher: view.switcher,
    body: `<h1>${escapeHtml(accountText(locale, view.title))}</h1>
${view.paragraphs.map((paragraph) => `<p>${escapeHtml(paragraph)}</p>`).join('\n')}${linksOf(locale, view.links)}`,
  });
}

export const lifetimeVars = { hours: linkLifetimes.verificationHours, minutes: linkLifetimes.resetMinutes };
