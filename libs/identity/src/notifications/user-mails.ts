import { type AccountEmailEvent, type EmailJob, isAccountEmailEvent, type StatusEmailEvent } from '@fed/contracts';
import { type MailComposer, type MailMessage } from '@fed/notifications';
import { type UserEntity, type UserStatus } from '../users/user.entity';
import { type UserRepository } from '../users/user.repository';
import { type NotificationLocale, notificationLocale, renderNotification } from './notification-templates';

/** The status an event leaves the user in: an e-mail whose event the user has since left is stale. */
const statusAfter: Record<StatusEmailEvent, UserStatus> = { user_approved: 'approved', user_rejected: 'pending' };

/** The link's token is made at send time (no secret waits in the queue); null when no longer needed. */
export interface AccountMailComposer {
  compose(event: AccountEmailEvent, job: EmailJob, user: UserEntity): Promise<MailMessage | null>;
}

/** Reads the user as they are at send time. */
export class UserMails implements MailComposer {
  constructor(
    private readonly users: Pick<UserRepository, 'find'>,
    /** Users have no language of their own yet: every status e-mail is in this one (NOTIFY_LOCALE). */
    private readonly defaultLocale: NotificationLocale,
    private readonly accountMails: AccountMailComposer,
  ) {}

  async compose(job: EmailJob): Promise<MailMessage | 'no-recipient' | 'stale'> {
    const user = await this.users.find(job.userId);
    if (!user) return 'no-recipient';
    return (await this.write(job, user)) ?? 'stale';
  }

  private async write(job: EmailJob, user: UserEntity): Promise<MailMessage | null> {
    const event = job.event;
    if (isAccountEmailEvent(event)) return this.accountMails.compose(event, job, user);
    if (user.status !== statusAfter[event]) return null;
    return renderNotification(event, notificationLocale(undefined, this.defaultLocale), user);
  }
}
