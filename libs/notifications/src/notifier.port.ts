/** One e-mail to one person. `html`, when given, is an alternative of `text` (already escaped). */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

export interface Notifier {
  readonly kind: 'smtp' | 'log';
  /** Resolves once the server accepted the message; a PermanentDeliveryError (@fed/bus) is not worth retrying. */
  send(message: MailMessage): Promise<void>;
  close(): Promise<void>;
}

export const NOTIFIER = Symbol.for('fed.notifications.Notifier');
