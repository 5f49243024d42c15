// The login, consent and error pages of the OpenID provider: plain, accessible HTML forms with no
// script. Every value is escaped; the pages are served with a CSP that allows nothing but inline style.

/** The languages of `ui_locales` (spec document 1); `ja` is the default. */
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

/** The first supported language of a space-separated `ui_locales` value, else `ja`. */
export function pickLocale(requested: unknown): UiLocale {
  if (typeof requested !== 'string') return 'ja';
  for (const tag of requested.split(' ')) {
    const exact = uiLocales.find((locale) => locale.toLowerCase() === tag.toLowerCase());
    if (exact) return exact;
    const language = uiLocales.find((locale) => locale.split('-')[0] === tag.toLowerCase().split('-')[0]);
    if (language) return language;
  }
  return 'ja';
}

interface Strings {
  signInTitle: string;
  signInTo: string;
  login: string;
  password: string;
  signIn: string;
  consentTitle: string;
  consentAsks: string;
  allow: string;
  deny: string;
  errorTitle: string;
}

const english: Strings = {
  signInTitle: 'Sign in',
  signInTo: 'Sign in to continue to',
  login: 'E-mail address or username',
  password: 'Password',
  signIn: 'Sign in',
  consentTitle: 'Allow access',
  consentAsks: 'asks for access to your account:',
  allow: 'Allow',
  deny: 'Deny',
  errorTitle: 'The request could not be completed',
};

const japanese: Strings = {
  signInTitle: 'ログイン',
  signInTo: '次のアプリケーションを続けるにはログインしてください:',
  login: 'メールアドレスまたはユーザー名',
  password: 'パスワード',
  signIn: 'ログイン',
  consentTitle: 'アクセスの許可',
  consentAsks: 'があなたのアカウントへの次のアクセスを求めています:',
  allow: '許可する',
  deny: '拒否する',
  errorTitle: 'リクエストを完了できませんでした',
};

// Japanese and English today; the other twelve languages of ui_locales come with the UI polish.
function stringsFor(locale: UiLocale): Strings {
  return locale === 'ja' ? japanese : english;
}

const scopeDescriptions: Record<string, string> = {
  openid: 'Sign you in (your user id)',
  profile: 'Your name',
  email: 'Your e-mail address',
  'chat:exec': 'Start and stop chats, receive answers and deliverables',
  'chat:history': 'Read, rename, delete and restore your conversations',
  'chat:file': 'Upload, read and delete chat files',
  'mcp:all': 'Connect through MCP',
  'a2a:all': 'Connect through A2A',
  'sharedmemory:query': 'Search shared memory',
  'users:read': 'Read the user list',
  'users:manage': 'Approve, remove and change the role of users',
  'logs:read': 'Read audit, LLM, gateway and access logs',
  'master:manage': 'Manage departments and job types',
};

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"'`]/g, (character) => `&#${character.charCodeAt(0)};`);
}

export const PAGE_SECURITY_HEADERS = {
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
  'X-Frame-Options': 'DENY',
  'Cache-Control': 'no-store',
  'Content-Type': 'text/html; charset=utf-8',
} as const;

function page(locale: UiLocale, title: string, body: string): string {
  const direction = locale === 'ar' ? 'rtl' : 'ltr';
  return `<!doctype html>
<html lang="${escapeHtml(locale)}" dir="${direction}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body{font-family:system-ui,sans-serif;max-width:26rem;margin:3rem auto;padding:0 1rem;color:#1b1b1b}
label{display:block;margin:1rem 0 .25rem}input{width:100%;padding:.5rem;font-size:1rem;box-sizing:border-box}
button{margin-top:1rem;padding:.5rem 1rem;font-size:1rem}.error{color:#a40000}
</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

export interface LoginPage {
  locale: UiLocale;
  action: string;
  csrf: string;
  clientName: string;
  login?: string;
  error?: string;
}

export function loginPage(view: LoginPage): string {
  const text = stringsFor(view.locale);
  const error = view.error ? `<p class="error" role="alert">${escapeHtml(view.error)}</p>` : '';
  return page(
    view.locale,
    text.signInTitle,
    `<h1>${escapeHtml(text.signInTitle)}</h1>
<p>${escapeHtml(text.signInTo)} <strong>${escapeHtml(view.clientName)}</strong></p>
${error}<form method="post" action="${escapeHtml(view.action)}">
<input type="hidden" name="csrf" value="${escapeHtml(view.csrf)}">
<label for="login">${escapeHtml(text.login)}</label>
<input id="login" name="login" type="text" autocomplete="username" required maxlength="254" value="${escapeHtml(view.login ?? '')}">
<label for="password">${escapeHtml(text.password)}</label>
<input id="password" name="password" type="password" autocomplete="current-password" required maxlength="256">
<button type="submit">${escapeHtml(text.signIn)}</button>
</form>`,
  );
}

export interface ConsentPage {
  locale: UiLocale;
  action: string;
  csrf: string;
  clientName: string;
  scopes: readonly string[];
}

export function consentPage(view: ConsentPage): string {
  const text = stringsFor(view.locale);
  const items = view.scopes
    .map((scope) => `<li><code>${escapeHtml(scope)}</code>: ${escapeHtml(scopeDescriptions[scope] ?? scope)}</li>`)
    .join('\n');
  return page(
    view.locale,
    text.consentTitle,
    `<h1>${escapeHtml(text.consentTitle)}</h1>
<p><strong>${escapeHtml(view.clientName)}</strong> ${escapeHtml(text.consentAsks)}</p>
<ul>
${items}
</ul>
<form method="post" action="${escapeHtml(view.action)}">
<input type="hidden" name="csrf" value="${escapeHtml(view.csrf)}">
<button type="submit" name="decision" value="allow">${escapeHtml(text.allow)}</button>
<button type="submit" name="decision" value="deny">${escapeHtml(text.deny)}</button>
</form>`,
  );
}

export function errorPage(error: string, description: string, locale: UiLocale = 'ja'): string {
  const text = stringsFor(locale);
  return page(
    locale,
    text.errorTitle,
    `<h1>${escapeHtml(text.errorTitle)}</h1>
<p><code>${escapeHtml(error)}</code>: ${escapeHtml(description)}</p>`,
  );
}
