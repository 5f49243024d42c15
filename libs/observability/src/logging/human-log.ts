import pino from 'pino';
import { prettyFactory } from 'pino-pretty';

// Nest's ~140 start-up lines (one per module and route) are framework detail: their info lines are shown
// in the human form only at LOG_LEVEL debug.
const NEST_WIRING_CONTEXTS = new Set([
  'NestFactory',
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestApplication',
]);
// Printed with their stack on lines of their own; other object, list or null fields stay in the JSON form
// only, so each record is one short line.
const ERROR_KEYS = ['err', 'error'];

export interface HumanLogOptions {
  nestWiring: boolean;
  /** Stdout unless given. */
  output?: { write(text: string): unknown; flush?(cb?: (error?: Error) => void): void };
}

/**
 * One line per record for a person at a terminal, written synchronously so text written after a log call
 * (the all-in-one banner) comes after it. Anything that is not a record is written as it is.
 */
export function humanLogDestination(options: HumanLogOptions): pino.DestinationStream & {
  flush(cb?: (error?: Error) => void): void;
} {
  const output = options.output ?? pino.destination({ dest: 1, sync: true });
  const prettify = prettyFactory({
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss',
    ignore: 'service,pid,hostname',
    errorLikeObjectKeys: ERROR_KEYS,
  });
  return {
    write(chunk: string) {
      if (!chunk.startsWith('{')) {
        output.write(chunk);
        return;
      }
      const record = JSON.parse(chunk) as Record<string, unknown>;
      if (!options.nestWiring && record.level === 'info' && NEST_WIRING_CONTEXTS.has(record.context as string)) return;
      for (const [key, value] of Object.entries(record)) {
        if (value === null || (typeof value === 'object' && !ERROR_KEYS.includes(key))) delete record[key];
      }
      output.write(prettify(record));
    },
    flush(cb) {
      if (output.flush) output.flush(cb);
      else cb?.();
    },
  };
}
