import { PermanentDeliveryError } from '@fed/bus';
import { createLogger } from '@fed/observability';
import { startSmtpServer } from '@fed/testing';
import { Writable } from 'node:stream';
import { LogNotifier } from './log-notifier';
import { SmtpNotifier } from './smtp-notifier';

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
