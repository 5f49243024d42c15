import { type EmailQueue } from '@fed/bus';
import { type AccountEmailEvent, type EmailEvent, type EmailJob } from '@fed/contracts';
import { type Logger } from '@fed/observability';

/** Call after the change is stored: the e-mail is queued, and a queue failure is logged, not thrown. */
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
