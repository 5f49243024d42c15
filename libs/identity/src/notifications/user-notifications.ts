import { type Logger } from '@fed/observability';
import { type NotificationEvent } from './notification-templates';
import { type NotificationQueue } from './notification-queue';

/**
 * What the user-status changes tell the user (spec document 3: approval, withdrawn approval). Call
 * after the change is stored: the e-mail is queued, never sent inline, and a queue failure is
 * logged rather than failing the change that already happened.
 */
export class UserNotifications {
  constructor(
    private readonly queue: NotificationQueue,
    private readonly logger: Logger,
  ) {}

  /** pending -> approved. */
  userApproved(userId: string): Promise<void> {
    return this.enqueue('user_approved', userId);
  }

  /** approved -> pending (approval withdrawn). */
  userRejected(userId: string): Promise<void> {
    return this.enqueue('user_rejected', userId);
  }

  private async enqueue(event: NotificationEvent, userId: string): Promise<void> {
    try {
      await this.queue.enqueue({ version: 1, userId, event });
    } catch (error) {
      this.logger.error({ err: error, userId, event }, 'notification could not be queued: the e-mail is lost');
    }
  }
}
