import { type Logger } from '@fed/observability';
import { type UserEntity, type UserStatus } from '../users/user.entity';
import { type UserRepository } from '../users/user.repository';
import {
  type AccountEvent,
  type NotificationLocale,
  type StatusEvent,
  isAccountEvent,
  notificationEvents,
  notificationLocale,
  renderNotification,
} from './notification-templates';
import { type NotificationJob } from './notification-queue';
import { type MailMessage, type Notifier, PermanentDeliveryError } from './notifier.port';

/** The status an event leaves the user in: an e-mail whose event the user has since left is stale. */
const statusAfter: Record<StatusEvent, UserStatus> = { user_approved: 'approved', user_rejected: 'pending' };

/**
 * Writes an account e-mail when it is sent, with a link whose token is made then (so no secret waits in
 * the queue); null when the user no longer needs it (already verified, no password to reset).
 */
export interface AccountMailComposer {
  compose(event: AccountEvent, job: NotificationJob, user: UserEntity): Promise<MailMessage | null>;
}

/** The worker's side: reads the user as they are now, renders the e-mail in their language, sends it. */
export class NotificationDelivery {
  constructor(
    private readonly users: Pick<UserRepository, 'find'>,
    private readonly notifier: Notifier,
    /** Users have no language of their own yet: every status e-mail is in this one (NOTIFY_LOCALE). */
    private readonly defaultLocale: NotificationLocale,
    private readonly logger: Logger,
    private readonly accountMails: AccountMailComposer,
  ) {}

  async deliver(job: NotificationJob, attempt: number): Promise<void> {
    if (job?.version !== 1 || !notificationEvents.includes(job.event) || typeof job.userId !== 'string') {
      throw new PermanentDeliveryError(`not a notification job this release knows: ${JSON.stringify(job)}`);
    }
    const user = await this.users.find(job.userId);
    const context = { userId: job.userId, event: job.event, attempt };
    if (!user) {
      this.logger.info(context, 'notification dropped: the user no longer exists');
      return;
    }
    const message = await this.compose(job, user);
    if (!message) {
      this.logger.info(context, "notification dropped: the user's state changed before it was sent");
      return;
    }
    await this.notifier.send(message);
    this.logger.info({ ...context, via: this.notifier.kind }, 'notification sent');
  }

  private async compose(job: NotificationJob, user: UserEntity): Promise<MailMessage | null> {
    const event = job.event;
    if (isAccountEvent(event)) return this.accountMails.compose(event, job, user);
    if (user.status !== statusAfter[event]) return null;
    return renderNotification(event, notificationLocale(undefined, this.defaultLocale), user);
  }
}
