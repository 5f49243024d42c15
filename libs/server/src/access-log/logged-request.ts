import { storableText } from '@fed/persistence';

/** Longest path (query included) kept; longer ones are cut. */
export const PATH_LIMIT = 2048;
export const HOST_LIMIT = 255;
export const USER_AGENT_LIMIT = 512;
const METHOD_LIMIT = 16;
const KEPT_VALUE_LIMIT = 64;

export const REDACTED = '[redacted]';

// Query parameters whose values are never secret (pages, day ranges, display modes): kept as sent.
const HARMLESS_KEYS = new Set(['limit', 'page', 'from', 'to', 'mode', 'cursor']);
// Any other parameter keeps its name when the name is a plain word, never its value.
const PLAIN_NAME = /^[A-Za-z][A-Za-z0-9_.-]{0,31}$/;

/**
 * The request target as the access log stores it: the path as sent, and of the query only what
 * cannot be a secret (codes, tokens, client secrets, id token hints, states ride in queries): the
 * values of a few harmless keys; every other value becomes `[redacted]`, and a name that is not a
 * plain word goes too. Bounded and storable.
 */
export function loggedPath(target: string): string {
  const query = target.indexOf('?');
  if (query < 0) return storableText(target, PATH_LIMIT);
  const path = target.slice(0, query);
  const pairs = target.slice(query + 1).split('&');
  let kept = '';
  for (const pair of pairs) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const name = equals < 0 ? pair : pair.slice(0, equals);
    let shown: string;
    // A bare item (`?sk-live-...`) is all value: nothing of it is kept.
    if (equals < 0) shown = REDACTED;
    else if (HARMLESS_KEYS.has(name))
      shown = pair.length > name.length + 1 + KEPT_VALUE_LIMIT ? `${name}=${REDACTED}` : pair;
    else shown = PLAIN_NAME.test(name) ? `${name}=${REDACTED}` : REDACTED;
    kept += kept === '' ? shown : `&${shown}`;
    if (path.length + kept.length > PATH_LIMIT) break;
  }
  return storableText(kept === '' ? path : `${path}?${kept}`, PATH_LIMIT);
}

export function loggedMethod(method: string | undefined): string | null {
  return method === undefined ? null : storableText(method, METHOD_LIMIT);
}

/** A header's value bounded and made storable; null when absent. */
export function loggedHeader(value: string | string[] | undefined, limit: number): string | null {
  if (value === undefined) return null;
  return storableText(typeof value === 'string' ? value : value.join(', '), limit);
}
