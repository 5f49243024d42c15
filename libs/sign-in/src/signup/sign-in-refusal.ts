import { accountPaths, accountUrl, interactionUid, type UiLocale, type UserStatus } from '@fed/identity/internal';
import { accountText } from './messages';

/** Shown only after a correct password, so it enumerates nothing. */
export function notApprovedAnswer(
  status: Exclude<UserStatus, 'approved'>,
  uid: string,
  locale: UiLocale,
): { error: string; links: { href: string; text: string }[] } {
  if (status === 'pending') return { error: accountText(locale, 'loginPending'), links: [] };
  const resend = accountUrl(accountPaths.resend, { locale, interaction: interactionUid(uid) });
  return {
    error: accountText(locale, 'loginUnverified'),
    links: [{ href: resend, text: accountText(locale, 'resendLink') }],
  };
}
