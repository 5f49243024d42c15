import pino from 'pino';
import { prettyFactory } from 'pino-pretty';

// Nest's wiring at start: one line per module and per route, some 140 in the all-in-one platform. Detail
// for someone debugging the framework, not for a person watching `npm start`: their info lines are left
// out of the human form unless LOG_LEVEL asks for debug (their warnings and errors are always shown).
const NEST_WIRING_CONTEXTS = new Set([
  'NestFactory',
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestApplication',
]);
// Printed with their stack on lines of their own; every other field holding an object or a list (a
// request's `req` and `res`, whose line already says method, URL and status; the list of migrations
// applied) or null (a setting left unset) stays in the JSON form only, so that each record is one short line.
const ERROR_KEYS = ['err', 'error'];

export interface HumanLogOptions {
  /** Show Nest's per-module and per-route info lines (LOG_LEVEL debug or trace). */
  nestWiring: boolean;
  /** Where the lines go: stdout unless given. */
  output?: { write(text: string): unknown; flush?(cb?: (error?: Error) => void): void };
}

/**
 * A pino destination that writes each record as one line for a person at a terminal (time, level,
 * message, the record's plain fields, errors with their stack), synchronously: a line is on the terminal
 * when the log call returns, so text written after it (the all-in-one banner) is printed after it.
 * Anything that is not a record (that text) is written as it is.
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
