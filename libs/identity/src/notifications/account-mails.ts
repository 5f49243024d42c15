import { type AccountEmailEvent, type EmailJob, type UiLocale, isRightToLeft, negotiateLocale } from '@fed/contracts';
import { type MailMessage } from '@fed/notifications';
import { type AccountMailComposer } from './user-mails';
import { escapeHtml } from '../pages/page-shell';
import { type UserEntity } from '../users/user.entity';
import { type AccountContext, accountPaths, accountUrl, interactionUid } from '../pages/account-links';
import { type AccountTokenPurpose } from './account-token.entity';
import { type AccountTokenRepository } from './account-token.repository';
import { accountMailText } from './account-mail-messages';

/** How long the links of the e-mails work (the pages say so too). */
export const linkLifetimes = {
  /** A day: sign-ups often wait for a mailbox checked once a day. */
  verificationHours: 24,
  /** Short, as OWASP advises: the link alone replaces the password. */
  resetMinutes: 30,
} as const;

type Key = Parameters<typeof accountMailText>[1];

interface MailText {
  subject: Key;
  body: Key;
  after?: Key;
  purpose: AccountTokenPurpose;
  path: string;
}

const mails: Record<AccountEmailEvent, MailText> = {
  email_verification: {
    subject: 'verifySubject',
    body: 'verifyBody',
    after: 'verifyNext',
    purpose: 'email_verification',
    path: accountPaths.verify,
  },
  password_reset: { subject: 'resetSubject', body: 'resetBody', purpose: 'password_reset', path: accountPaths.reset },
  // Sign-up with an address that has an account: its owner gets a way in, the sign-up page says nothing.
  account_exists: { subject: 'existsSubject', body: 'existsBody', purpose: 'password_reset', path: accountPaths.reset },
};

/**
 * The link's token is made at send time, so the queue holds only the user's id and no usable secret waits in
 * Redis. A retry makes a new token; nothing is sent to a user who no longer needs it.
 */
export class AccountMails implements AccountMailComposer {
  constructor(
    private readonly tokens: Pick<AccountTokenRepository, 'issue'>,
    /** {auth_url}: the links are absolute. */
    private readonly authUrl: string,
  ) {}

  async compose(event: AccountEmailEvent, job: EmailJob, user: UserEntity): Promise<MailMessage | null> {
    const needed = event === 'email_verification' ? user.status === 'unverified' : user.passwordHash !== null;
    if (!needed) return null;
    const mail = mails[event];
    const context: AccountContext = {
      locale: negotiateLocale({ chosen: job.locale }),
      interaction: interactionUid(job.interaction),
    };
    const seconds =
      mail.purpose === 'email_verification' ? linkLifetimes.verificationHours * 3600 : linkLifetimes.resetMinutes * 60;
    const token = await this.tokens.issue(user.id, mail.purpose, seconds);
    const link = new URL(accountUrl(mail.path, context, { token }), this.authUrl).href;
    return renderAccountMail(context.locale, mail, user, link);
  }
}

function renderAccountMail(locale: UiLocale, mail: MailText, user: UserEntity, link: string): MailMessage {
  const text = (key: Key) =>
    accountMailText(locale, key, {
      name: user.displayName,
      hours: linkLifetimes.verificationHours,
      minutes: linkLifetimes.resetMinutes,
    });
  const before = [text('greeting'), text(mail.body)];
  const after = [...(mail.after ? [text(mail.after)] : []), text('ignore')];
  const paragraphs = (lines: string[]) => lines.map((line) => `<p>${escapeHtml(line)}</p>`).join('');
  const direction = isRightToLeft(locale) ? 'rtl' : 'ltr';
  return {
    to: user.email,
    subject: text(mail.subject),
    text: `${[...before, link, ...after].join('\n\n')}\n`,
    html: `<!doctype html><html lang="${locale}" dir="${direction}"><body>${paragraphs(before)}<p><a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p>${paragraphs(after)}</body></html>`,
  };
}
