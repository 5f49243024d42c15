import { type Logger } from '@fed/observability';
import { type MailMessage, type Notifier } from './notifier.port';

/** Without SMTP_URL: logs recipient and subject only, since bodies may carry sign-in links. */
export class LogNotifier implements Notifier {
  readonly kind = 'log';

  constructor(private readonly logger: Logger) {}

  async send(message: MailMessage): Promise<void> {
    this.logger.info({ to: message.to, subject: message.subject }, 'e-mail not sent (no SMTP_URL): logged instead');
  }

  async close(): Promise<void> {}
}
