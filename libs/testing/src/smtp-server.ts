import { type AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMessage {
  from: string;
  to: string[];
  /** RFC 2047 encoded words decoded. */
  subject: string;
  /** Headers and MIME parts. */
  raw: string;
}

export interface TestSmtpServer {
  /** Loopback, no TLS, user `mailer` with password `s3cret`. */
  url: string;
  received: ReceivedMessage[];
  /** Refused ones included. */
  attempts(): number;
  close(): Promise<void>;
}

/** `refuse(n)` answers the n-th recipient with a reply code (4xx: try again later, 5xx: never). */
export async function startSmtpServer(
  refuse: (attempt: number) => number | undefined = () => undefined,
): Promise<TestSmtpServer> {
  const received: ReceivedMessage[] = [];
  let attempts = 0;
  const server = new SMTPServer({
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
          subject: decodedHeader(raw, 'Subject'),
          raw,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://mailer:s3cret@127.0.0.1:${port}`,
    received,
    attempts: () => attempts,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** RFC 2047 encoded words decoded (enough for what nodemailer writes). */
export function decodedHeader(raw: string, name: string): string {
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
