/** One e-mail to one person. `html`, when given, is an alternative of `text` (already escaped). */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

/** Where e-mails to users go: an SMTP server, or the log when none is configured. */
export interface Notifier {
  readonly kind: 'smtp' | 'log';
  /** Resolves once the server accepted the message; a PermanentDeliveryError (@fed/bus) is not worth retrying. */
  send(message: MailMessage): Promise<void>;
  close(): Promise<void>;
}

/** Nest injection token of the notifier. */
export const NOTIFIER = Symbol.for('fed.notifications.Notifier');
