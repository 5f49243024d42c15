import { type StatusEmailEvent, negotiateLocale } from '@fed/contracts';
import { type MailMessage } from '@fed/notifications';
import { escapeHtml } from '../pages/page-shell';

/** Languages with templates; any other language of `ui_locales` gets English, as the login pages do. */
export type NotificationLocale = 'ja' | 'en';

export function notificationLocale(tag: string | undefined, fallback: NotificationLocale): NotificationLocale {
  if (!tag) return fallback;
  return negotiateLocale({ uiLocales: tag }) === 'ja' ? 'ja' : 'en';
}

interface Template {
  subject: string;
  greeting(name: string): string;
  body: string[];
}

const templates: Record<NotificationLocale, Record<StatusEmailEvent, Template>> = {
  en: {
    user_approved: {
      subject: 'Your account has been approved',
      greeting: (name) => `Hello ${name},`,
      body: ['An administrator approved your account. You can now sign in.'],
    },
    user_rejected: {
      subject: 'The approval of your account has been withdrawn',
      greeting: (name) => `Hello ${name},`,
      body: [
        'An administrator withdrew the approval of your account. It is pending again, and you cannot sign in until it is approved.',
        'If you think this is a mistake, please contact your administrator.',
      ],
    },
  },
  ja: {
    user_approved: {
      subject: 'アカウントが承認されました',
      greeting: (name) => `${name} 様`,
      body: ['管理者があなたのアカウントを承認しました。サインインできるようになりました。'],
    },
    user_rejected: {
      subject: 'アカウントの承認が取り消されました',
      greeting: (name) => `${name} 様`,
      body: [
        '管理者があなたのアカウントの承認を取り消しました。再び承認されるまでサインインできません。',
        'お心当たりがない場合は、管理者にお問い合わせください。',
      ],
    },
  },
};

export interface Recipient {
  email: string;
  displayName: string;
}

/** HTML with every user-provided value escaped. */
export function renderNotification(
  event: StatusEmailEvent,
  locale: NotificationLocale,
  recipient: Recipient,
): MailMessage {
  const template = templates[locale][event];
  const greeting = template.greeting(recipient.displayName);
  const paragraphs = [greeting, ...template.body];
  return {
    to: recipient.email,
    subject: template.subject,
    text: `${paragraphs.join('\n\n')}\n`,
    html: `<!doctype html><html lang="${locale}"><body>${paragraphs
      .map((paragraph) => `<p>${escapeHtml(paragraph)}</p>`)
      .join('')}</body></html>`,
  };
}
