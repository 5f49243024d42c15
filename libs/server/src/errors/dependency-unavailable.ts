// A dependency out of reach is a 503 with Retry-After, so a client may safely retry, not a 500 (a bug of
// ours). Only connection failures count: an SQL error or a TypeError stays a 500.

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/** Class 08 (connection exception), 57P01-57P03 (shutdown, cannot connect now), 53300 (too many connections). */
const POSTGRES_STATES = /^(08[0-9A-Z]{3}|57P0[123]|53300)$/;

/** node-postgres and pg-pool report a lost or never-made connection in messages only. */
const POSTGRES_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect$/,
  /^Cannot use a pool after calling end on the pool$/,
  /^Client has encountered a connection error and is not queryable$/,
];

/** Commands given up after `maxRetriesPerRequest` reconnects, or sent on a closed connection. */
const REDIS_NAMES = new Set(['MaxRetriesPerRequestError']);
const REDIS_MESSAGES = [
  /^Connection is closed\.?$/,
  /^Stream isn't writeable and enableOfflineQueue options is false$/,
];

/** TypeORM used before its data source connected, or after it was destroyed. */
const TYPEORM_NAMES = new Set(['CannotExecuteNotConnectedError', 'ConnectionIsNotSetError']);

/** Looks into `driverError`, `cause` and AggregateError's errors, a few levels deep (the wrappers nest one or two). */
export function isDependencyUnavailable(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 3) return false;
  const { code, name, message } = error as { code?: unknown; name?: unknown; message?: unknown };
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || POSTGRES_STATES.test(code))) return true;
  if (typeof name === 'string' && (REDIS_NAMES.has(name) || TYPEORM_NAMES.has(name))) return true;
  if (typeof message === 'string' && [...POSTGRES_MESSAGES, ...REDIS_MESSAGES].some((known) => known.test(message)))
    return true;
  const wrapped = error as { driverError?: unknown; cause?: unknown; errors?: unknown };
  if (isDependencyUnavailable(wrapped.driverError, depth + 1)) return true;
  if (isDependencyUnavailable(wrapped.cause, depth + 1)) return true;
  return Array.isArray(wrapped.errors) && wrapped.errors.some((inner) => isDependencyUnavailable(inner, depth + 1));
}
