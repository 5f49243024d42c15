import { PinoNestLogger } from './nest-logger';
import { humanLogDestination } from './human-log';
import { createLogger, writeToLogDestination } from './logger';

function humanLogger(nestWiring = false) {
  const written: string[] = [];
  const output = { write: (text: string) => written.push(text) };
  const logger = createLogger({
    service: 'platform',
    level: 'info',
    destination: humanLogDestination({ nestWiring, output }),
  });
  return { logger, written };
}

// The colours pino-pretty adds when the terminal has them.
const plain = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, '');

describe('the human log form (LOG_FORMAT=pretty)', () => {
  it('writes a record as one line: time, level, message and its plain fields, without the service', () => {
    const { logger, written } = humanLogger();
    logger.info({ dataDir: '/tmp/data', durationMs: 42 }, 'embedded PostgreSQL started');
    expect(written).toHaveLength(1);
    expect(plain(written[0]!)).toMatch(
      /^\[\d\d:\d\d:\d\d\] INFO: embedded PostgreSQL started \{"dataDir":"\/tmp\/data","durationMs":42\}\n$/,
    );
    expect(written[0]).not.toContain('platform');
  });

  it('leaves the fields holding objects, lists or null out (a request line already says method, URL and status)', () => {
    const { logger, written } = humanLogger();
    logger.info(
      {
        requestId: 'r-1',
        req: { method: 'GET', url: '/readyz' },
        res: { statusCode: 200 },
        applied: ['A1', 'B2'],
        file: null,
      },
      'GET /readyz 200 3ms',
    );
    const line = plain(written[0]!);
    expect(line).toMatch(/INFO: GET \/readyz 200 3ms \{"requestId":"r-1"\}\n$/);
    expect(line).not.toContain('statusCode');
    expect(line).not.toContain('A1');
    expect(line).not.toContain('file');
  });

  it('sends no control character of a logged value to the terminal (escape sequences from a request)', () => {
    const { logger, written } = humanLogger();
    logger.warn({ clientId: 'x\x1b]0;pwned\x07' }, 'unknown client \x1b[2J\x1b[31mcleared\r');
    logger.error({ err: new Error('bad \x1b[2J input') }, 'refused');
    const text = written.join('');
    expect(text).not.toContain('\x1b[2J');
    expect(text).not.toContain('\x07');
    expect(text).not.toContain('\r');
    expect(plain(text)).toContain('unknown client');
  });

  it('prints an error with its message and stack', () => {
    const { logger, written } = humanLogger();
    logger.error({ err: new Error('database is gone') }, 'shutdown failed');
    const text = plain(written.join(''));
    expect(text).toMatch(/ERROR: shutdown failed/);
    expect(text).toContain('database is gone');
    expect(text).toMatch(/at .*human-log\.spec/);
  });

  it("leaves out Nest's per-module and per-route start lines, not its warnings, unless asked for", () => {
    const { logger, written } = humanLogger();
    const nest = new PinoNestLogger(logger);
    nest.log('Mapped {/healthz, GET} route', 'RouterExplorer');
    nest.log('AuthModule dependencies initialized', 'InstanceLoader');
    nest.log('Nest application successfully started', 'NestApplication');
    nest.warn('a deprecated option', 'NestFactory');
    expect(written.map(plain)).toEqual([
      expect.stringMatching(/WARN: a deprecated option \{"context":"NestFactory"\}/),
    ]);

    const debugging = humanLogger(true);
    new PinoNestLogger(debugging.logger).log('Mapped {/healthz, GET} route', 'RouterExplorer');
    expect(plain(debugging.written[0]!)).toContain('INFO: Mapped {/healthz, GET} route');
  });

  it('writes text that is not a record as it is, after the lines logged before it', () => {
    const { logger, written } = humanLogger();
    logger.info('platform listening');
    writeToLogDestination(logger, '\nFederation agent platform\nPress Ctrl-C to stop.\n');
    expect(written).toHaveLength(2);
    expect(plain(written[0]!)).toContain('INFO: platform listening');
    expect(written[1]).toBe('\nFederation agent platform\nPress Ctrl-C to stop.\n');
  });
});
