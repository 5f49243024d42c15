import { type UiLocale } from './locales';
import { INTERACTION_PATH, OIDC_BASE_PATH } from './paths';

export const ACCOUNT_PATH = `${OIDC_BASE_PATH}/account`;

/** The account pages, relative to {auth_url}. */
export const accountPaths = {
  signUp: `${ACCOUNT_PATH}/signup`,
  verify: `${ACCOUNT_PATH}/verify`,
  resend: `${ACCOUNT_PATH}/resend`,
  forgot: `${ACCOUNT_PATH}/password/forgot`,
  reset: `${ACCOUNT_PATH}/password/reset`,
} as const;

// oidc-provider's interaction uids (nanoid); anything else is not carried along.
const INTERACTION_UID = /^[A-Za-z0-9_-]{1,64}$/;

/** Where an account page was reached from: its language, and the sign-in request to return to. */
export interface AccountContext {
  locale: UiLocale;
  /** The uid of the sign-in (login page) the user left for this page, if any. */
  interaction?: string;
}

export function interactionUid(value: unknown): string | undefined {
  return typeof value === 'string' && INTERACTION_UID.test(value) ? value : undefined;
}

/** An account page with the context in its query (and `extra`, e.g. a link's token). */
export function accountUrl(path: string, context: AccountContext, extra: Record<string, string> = {}): string {
  const query = new URLSearchParams({ ...extra, lang: context.locale });
  if (context.interaction) query.set('interaction', context.interaction);
  return `${path}?${query.toString()}`;
}

/** The login page of the sign-in the user came from; none when they came from elsewhere (an e-mail). */
export function signInUrl(context: AccountContext): string | undefined {
  if (!context.interaction) return undefined;
  return `${INTERACTION_PATH}/${context.interaction}?lang=${encodeURIComponent(context.locale)}`;
}

/** The links of a login page to the sign-up and password-reset pages, which lead back to it. */
export function loginPageLinks(uid: string, locale: UiLocale): { signUpUrl: string; resetUrl: string } {
  const context = { locale, interaction: interactionUid(uid) };
  return { signUpUrl: accountUrl(accountPaths.signUp, context), resetUrl: accountUrl(accountPaths.forgot, context) };
}
