import { redactedQuery } from '@fed/observability';
import { storableText } from '@fed/persistence';

export const PATH_LIMIT = 2048;
export const HOST_LIMIT = 255;
export const USER_AGENT_LIMIT = 512;
const METHOD_LIMIT = 16;

/** Of the query only what cannot be a secret (`redactedQuery`, as spans do). */
export function loggedPath(target: string): string {
  const query = target.indexOf('?');
  if (query < 0) return storableText(target, PATH_LIMIT);
  const path = target.slice(0, query);
  const kept = redactedQuery(target.slice(query + 1), PATH_LIMIT - path.length);
  return storableText(kept === '' ? path : `${path}?${kept}`, PATH_LIMIT);
}

export function loggedMethod(method: string | undefined): string | null {
  return method === undefined ? null : storableText(method, METHOD_LIMIT);
}

/** Null when absent. */
export function loggedHeader(value: string | string[] | undefined, limit: number): string | null {
  if (value === undefined) return null;
  return storableText(typeof value === 'string' ? value : value.join(', '), limit);
}
