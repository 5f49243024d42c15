import type * as Nodemailer from 'nodemailer';
import { PermanentDeliveryError } from '@fed/bus';
import { type MailMessage, type Notifier } from './notifier.port';

export interface SmtpSettings {
  /** `smtp://user:pass@host:587` or `smtps://...`; credentials and TLS come from the URL. */
  url: string;
  from: string;
}

// A server that does not answer must not hold a worker slot for nodemailer's default ten minutes.
const CONNECTION_TIMEOUT_MS = 10_000;
const GREETING_TIMEOUT_MS = 10_000;
const SOCKET_TIMEOUT_MS = 30_000;
const DNS_TIMEOUT_MS = 10_000;

/** One connection per message (no pool to go stale); nodemailer is loaded with the first message. */
export class SmtpNotifier implements Notifier {
  readonly kind = 'smtp';
  private transport: Promise<ReturnType<typeof Nodemailer.createTransport>> | undefined;

  constructor(private readonly settings: SmtpSettings) {}

  private transportOf(): Promise<ReturnType<typeof Nodemailer.createTransport>> {
    this.transport ??= import('nodemailer').then(({ createTransport }) =>
      createTransport(
        {
          url: this.settings.url,
          connectionTimeout: CONNECTION_TIMEOUT_MS,
          greetingTimeout: GREETING_TIMEOUT_MS,
          socketTimeout: SOCKET_TIMEOUT_MS,
          dnsTimeout: DNS_TIMEOUT_MS,
        },
        { from: this.settings.from },
      ),
    );
    return this.transport;
  }

  async send(message: MailMessage): Promise<void> {
    try {
      const transport = await this.transportOf();
      await transport.sendMail({
        to: message.to,
        subject: message.subject,
        text: message.text,
        html: message.html,
      });
    } catch (error) {
      const responseCode = (error as { responseCode?: unknown }).responseCode;
      if (typeof responseCode === 'number' && responseCode >= 500 && responseCode < 600) {
        throw new PermanentDeliveryError(`the SMTP server refused the message (${responseCode})`, { cause: error });
      }
      throw error;
    }
  }

  async close(): Promise<void> {
    (await this.transport)?.close();
  }
}
