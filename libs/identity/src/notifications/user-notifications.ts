import { type EmailQueue } from '@fed/bus';
import { type AccountEmailEvent, type EmailEvent, type EmailJob } from '@fed/contracts';
import { type Logger } from '@fed/observability';

/**
 * What the user-status changes tell the user (spec document 3: approval, withdrawn approval). Call
 * after the change is stored: the e-mail is queued, never sent inline, and a queue failure is
 * logged rather than failing the change that already happened.
 */
export class UserNotifications {
  constructor(
    private readonly queue: EmailQueue,
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

  /** An e-mail of the account pages (a link to confirm the address, to set a new password). */
  accountMail(
    event: AccountEmailEvent,
    userId: string,
    context: { locale: string; interaction?: string },
  ): Promise<void> {
    return this.enqueue(event, userId, context);
  }

  private async enqueue(
    event: EmailEvent,
    userId: string,
    context: Pick<EmailJob, 'locale' | 'interaction'> = {},
  ): Promise<void> {
    try {
      await this.queue.enqueue({ version: 1, userId, event, ...context });
    } catch (error) {
      this.logger.error({ err: error, userId, event }, 'notification could not be queued: the e-mail is lost');
    }
  }
}
