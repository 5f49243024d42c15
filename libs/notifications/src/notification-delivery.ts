import { PermanentDeliveryError } from '@fed/bus';
import { type EmailJob, emailEvents } from '@fed/contracts';
import { type Logger } from '@fed/observability';
import { type MailMessage, type Notifier } from './notifier.port';

/**
 * Writes the e-mail of a job when it is sent, from the recipient as they are then: given by the
 * library that owns the recipient (identity). `no-recipient`: the user no longer exists; `stale`:
 * their state changed so that the e-mail is no longer wanted.
 */
export interface MailComposer {
  compose(job: EmailJob): Promise<MailMessage | 'no-recipient' | 'stale'>;
}

/** Nest injection token of the composer the delivery uses. */
export const MAIL_COMPOSER = Symbol.for('fed.notifications.MailComposer');

/** The worker's side: has the e-mail written as of now, sends it. */
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
