import { type Logger } from '@fed/observability';
import { type UserStatus } from '../users/user.entity';
import { type UserRepository } from '../users/user.repository';
import {
  type NotificationEvent,
  type NotificationLocale,
  notificationEvents,
  notificationLocale,
  renderNotification,
} from './notification-templates';
import { type NotificationJob } from './notification-queue';
import { type Notifier, PermanentDeliveryError } from './notifier.port';

/** The status an event leaves the user in: an e-mail whose event the user has since left is stale. */
const statusAfter: Record<NotificationEvent, UserStatus> = { user_approved: 'approved', user_rejected: 'pending' };

/** The worker's side: reads the user as they are now, renders the e-mail in their language, sends it. */
export class NotificationDelivery {
  constructor(
    private readonly users: Pick<UserRepository, 'find'>,
    private readonly notifier: Notifier,
    /** Users have no language of their own yet: every e-mail is in this one (NOTIFY_LOCALE). */
    private readonly defaultLocale: NotificationLocale,
    private readonly logger: Logger,
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
    if (user.status !== statusAfter[job.event]) {
      this.logger.info(context, "notification dropped: the user's status changed again before it was sent");
      return;
    }
    const locale = notificationLocale(undefined, this.defaultLocale);
    await this.notifier.send(renderNotification(job.event, locale, user));
    this.logger.info({ ...context, via: this.notifier.kind }, 'notification sent');
  }
}
