import pino, { type Logger, type LevelWithSilent } from 'pino';
import { activeTraceIds } from '../tracing/trace-context';
import { currentRequestId } from './request-context';

export type { Logger } from 'pino';

/** `auto`: the human form when stdout is a terminal, JSON otherwise. */
export type LogFormat = 'json' | 'pretty' | 'auto';

export interface LoggerOptions {
  service: string;
  level: LevelWithSilent;
  format?: LogFormat;
  /** Tests pass a stream to read what was written. */
  destination?: pino.DestinationStream;
}

// Values that must never reach a log, wherever they appear in a logged object.
const redactPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
  '*.password',
  '*.client_secret',
  '*.access_token',
  '*.refresh_token',
];

export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      level: options.level,
      base: { service: options.service },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: redactPaths, censor: '[redacted]' },
      mixin: () => {
        const requestId = currentRequestId();
        const traced = activeTraceIds();
        if (!traced) return requestId ? { requestId } : {};
        return requestId ? { requestId, ...traced } : traced;
      },
    },
    options.destination ?? destinationFor(options.format ?? 'json', options.level),
  );
}

function destinationFor(format: LogFormat, level: LevelWithSilent): pino.DestinationStream {
  const human = format === 'pretty' || (format === 'auto' && process.stdout.isTTY === true);
  if (!human) return pino.destination({ sync: false });
  // Required here, not imported: only a process that writes for a person loads the prettifier, never a service.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { humanLogDestination } = require('./human-log') as typeof import('./human-log');
  return humanLogDestination({ nestWiring: level === 'debug' || level === 'trace' });
}

/** The destination is asynchronous, so a direct write to stdout could overtake lines logged before. */
export function writeToLogDestination(logger: Logger, text: string): void {
  const destination = (logger as unknown as Record<symbol, { write(text: string): void } | undefined>)[
    pino.symbols.streamSym
  ];
  if (destination) destination.write(text);
  else process.stdout.write(text);
}

export const LOGGER = Symbol.for('fed.observability.Logger');
