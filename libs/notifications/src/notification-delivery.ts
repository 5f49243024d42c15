import { PermanentDeliveryError } from '@fed/bus';
import { type EmailJob, emailEvents } from '@fed/contracts';
import { type Logger } from '@fed/observability';
import { type MailMessage, type Notifier } from './notifier.port';

/** Writes a job's e-mail at send time from the recipient's current state; `stale`: no longer wanted. */
export interface MailComposer {
  compose(job: EmailJob): Promise<MailMessage | 'no-recipient' | 'stale'>;
}

export const MAIL_COMPOSER = Symbol.for('fed.notifications.MailComposer');

export class NotificationDelivery {
  constructor(
    private readonly composer: MailComposer,
    private readonly notifier: Notifier,
    private readonly logger: Logger,
  ) {}

  async deliver(job: EmailJob, attempt: number): Promise<void> {
    if (job?.version !== 1 || !emailEvents.includes(job.event) || typeof job.userId !== 'string') {
      throw new PermanentDeliveryError(`not a notification job this release knows: ${JSON.stringify(job)}`);
    }
    const context = { userId: job.userId, event: job.event, attempt };
    const message = await this.composer.compose(job);
    if (message === 'no-recipient') {
      this.logger.info(context, 'notification dropped: the user no longer exists');
      return;
    }
    if (message === 'stale') {
      this.logger.info(context, "notification dropped: the user's state changed before it was sent");
      return;
    }
    await this.notifier.send(message);
    this.logger.info({ ...context, via: this.notifier.kind }, 'notification sent');
  }
}
