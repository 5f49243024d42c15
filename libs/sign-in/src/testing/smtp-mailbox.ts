import { type AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  to: string;
  /** The whole message as received (headers and MIME parts). */
  raw: string;
}

export interface SmtpMailbox {
  /** SMTP_URL of the server (loopback, no TLS, no auth). */
  url: string;
  received: ReceivedMail[];
  nth(to: string, count: number, timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

/** A real SMTP server on loopback that keeps every message it accepts, for the specs of the account e-mails. */
export async function startSmtpMailbox(): Promise<SmtpMailbox> {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        for (const recipient of session.envelope.rcptTo) received.push({ to: recipient.address, raw });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    async nth(to, count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const mails = received.filter((mail) => mail.to === to);
        if (mails.length >= count) return mails[count - 1];
        if (Date.now() > deadline) throw new Error(`no e-mail #${count} to ${to} within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The plain-text part of an e-mail, decoded (nodemailer writes quoted-printable or base64). */
export function plainTextOf(mail: ReceivedMail): string {
  const part = mail.raw
    .split(/\r?\n--/)
    .find((chunk) => /^Content-Type: text\/plain/im.test(chunk.split(/\r?\n\r?\n/)[0]));
  if (!part) throw new Error(`no plain-text part in the e-mail to ${mail.to}`);
  const [headers, ...body] = part.split(/\r?\n\r?\n/);
  const encoded = body.join('\n\n');
  if (/Content-Transfer-Encoding: base64/i.test(headers)) return Buffer.from(encoded, 'base64').toString('utf8');
  const bytes = encoded
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

export function accountLinkIn(mail: ReceivedMail): URL {
  const match = /https?:\/\/\S+\/federation\/auth\/v1\/account\/\S+/.exec(plainTextOf(mail));
  if (!match) throw new Error(`no account link in the e-mail to ${mail.to}`);
  return new URL(match[0]);
}

/** The decoded Subject header (UTF-8 encoded words as nodemailer writes them). */
export function subjectOf(mail: ReceivedMail): string {
  const headers = mail.raw.split(/\r?\n\r?\n/)[0].replace(/\r?\n[ \t]+/g, ' ');
  const line = headers.split(/\r?\n/).find((header) => /^subject:/i.test(header)) ?? '';
  return line
    .slice('subject:'.length)
    .trim()
    .replace(/=\?utf-8\?B\?([^?]*)\?=\s*/gi, (_, base64: string) => Buffer.from(base64, 'base64').toString('utf8'));
}
