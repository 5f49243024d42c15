import { PermanentDeliveryError } from '@fed/bus';
import { createLogger } from '@fed/observability';
import { type AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { LogNotifier } from './log-notifier';
import { SmtpNotifier } from './smtp-notifier';

interface Received {
  from: string;
  to: string[];
  subject: string;
  raw: string;
}

/** An SMTP server on loopback with simple auth; `refuse` answers a message's recipient with a reply code. */
async function startSmtpServer(refuse: (attempt: number) => number | undefined = () => undefined) {
  const received: Received[] = [];
  let attempts = 0;
  const options: SMTPServerOptions = {
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    logger: false,
    onAuth: (auth, _session, callback) =>
      auth.username === 'mailer' && auth.password === 's3cret'
        ? callback(null, { user: auth.username })
        : callback(Object.assign(new Error('bad credentials'), { responseCode: 535 })),
    onRcptTo: (_address, _session, callback) => {
      const code = refuse(++attempts);
      callback(code ? Object.assign(new Error(`refused with ${code}`), { responseCode: code }) : null);
    },
    onData: (stream, session, callback) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          subject: decodeHeader(raw, 'Subject'),
          raw,
        });
        callback();
      });
    },
  };
  const server = new SMTPServer(options);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://mailer:s3cret@127.0.0.1:${port}`,
    received,
    attempts: () => attempts,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A header's value with RFC 2047 encoded words decoded (enough for what nodemailer writes). */
function decodeHeader(raw: string, name: string): string {
  const headers = raw.split(/\r?\n\r?\n/)[0].replace(/\r?\n[ \t]+/g, ' ');
  const line = headers.split(/\r?\n/).find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  if (!line) return '';
  const value = line.slice(name.length + 1).trim();
  const words = [...value.matchAll(/=\?utf-8\?([bq])\?([^?]*)\?=/gi)];
  if (words.length === 0) return value;
  return Buffer.concat(
    words.map(([, encoding, text]) =>
      encoding.toLowerCase() === 'b'
        ? Buffer.from(text, 'base64')
        : Buffer.from(
            text
              .replace(/_/g, ' ')
              .replace(/=([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
            'latin1',
          ),
    ),
  ).toString('utf8');
}

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('SmtpNotifier: e-mails through a real SMTP server', () => {
  it('delivers to the recipient, from SMTP_FROM, with the credentials of the URL', async () => {
    const smtp = await startSmtpServer();
    const notifier = new SmtpNotifier({ url: smtp.url, from: 'Federation <no-reply@example.com>' });
    try {
      await notifier.send({
        to: 'bob@example.com',
        subject: 'アカウントが承認されました',
        text: 'Bob 様\n',
        html: '<!doctype html><html lang="ja"><body><p>Bob 様</p></body></html>',
      });
      expect(smtp.received).toHaveLength(1);
      expect(smtp.received[0].to).toEqual(['bob@example.com']);
      expect(smtp.received[0].from).toBe('no-reply@example.com');
      expect(smtp.received[0].subject).toBe('アカウントが承認されました');
      expect(smtp.received[0].raw).toMatch(/Content-Type: text\/html/i);
    } finally {
      await notifier.close();
      await smtp.close();
    }
  });

  it('reports a temporary refusal (4xx) as retryable and a permanent one (5xx) as not', async () => {
    const codes = [451, 550];
    const smtp = await startSmtpServer(() => codes.shift());
    const notifier = new SmtpNotifier({ url: smtp.url, from: 'no-reply@example.com' });
    const message = { to: 'carol@example.com', subject: 'hi', text: 'hi' };
    try {
      const temporary = await notifier.send(message).catch((error: unknown) => error);
      expect(temporary).toBeInstanceOf(Error);
      expect(temporary).not.toBeInstanceOf(PermanentDeliveryError);
      await expect(notifier.send(message)).rejects.toBeInstanceOf(PermanentDeliveryError);
      expect(smtp.received).toHaveLength(0);
    } finally {
      await notifier.close();
      await smtp.close();
    }
  });
});

describe('LogNotifier: no SMTP_URL', () => {
  it('logs the recipient and subject, never the body', async () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        lines.push(chunk.toString());
        callback();
      },
    });
    const logger = createLogger({ service: 'test', level: 'info', destination });
    await new LogNotifier(logger).send({ to: 'dave@example.com', subject: 'Approved', text: 'secret-body-text' });
    await until(() => lines.length > 0);
    const record = JSON.parse(lines[0]) as Record<string, unknown>;
    expect(record).toMatchObject({ to: 'dave@example.com', subject: 'Approved' });
    expect(lines.join('')).not.toContain('secret-body-text');
  });
});
