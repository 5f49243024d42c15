import { type UiLocale } from '@fed/contracts';
import { INTERACTION_PATH, OIDC_BASE_PATH } from './paths';

export const ACCOUNT_PATH = `${OIDC_BASE_PATH}/account`;

export const accountPaths = {
  signUp: `${ACCOUNT_PATH}/signup`,
  verify: `${ACCOUNT_PATH}/verify`,
  resend: `${ACCOUNT_PATH}/resend`,
  forgot: `${ACCOUNT_PATH}/password/forgot`,
  reset: `${ACCOUNT_PATH}/password/reset`,
} as const;

// oidc-provider's interaction uids (nanoid); anything else is not carried along.
const INTERACTION_UID = /^[A-Za-z0-9_-]{1,64}$/;

export interface AccountContext {
  locale: UiLocale;
  /** The login page's interaction uid the user left, if any. */
  interaction?: string;
}

export function interactionUid(value: unknown): string | undefined {
  return typeof value === 'string' && INTERACTION_UID.test(value) ? value : undefined;
}

export function accountUrl(path: string, context: AccountContext, extra: Record<string, string> = {}): string {
  const query = new URLSearchParams({ ...extra, lang: context.locale });
  if (context.interaction) query.set('interaction', context.interaction);
  return `${path}?${query.toString()}`;
}

/** None when the user came from elsewhere (an e-mail). */
export function signInUrl(context: AccountContext): string | undefined {
  if (!context.interaction) return undefined;
  return `${INTERACTION_PATH}/${context.interaction}?lang=${encodeURIComponent(context.locale)}`;
}

export function loginPageLinks(uid: string, locale: UiLocale): { signUpUrl: string; resetUrl: string } {
  const context = { locale, interaction: interactionUid(uid) };
  return { signUpUrl: accountUrl(accountPaths.signUp, context), resetUrl: accountUrl(accountPaths.forgot, context) };
}
