// Codes, tokens, client secrets, id token hints, states and API keys ride in queries.

export const REDACTED = '[redacted]';

const KEPT_VALUE_LIMIT = 64;
const HARMLESS_KEYS = new Set(['limit', 'page', 'from', 'to', 'mode', 'cursor']);
// Other parameters keep their name when it is a plain word, never their value.
const PLAIN_NAME = /^[A-Za-z][A-Za-z0-9_.-]{0,31}$/;

/**
 * Only a few harmless keys keep their values; a bare item (`?sk-live-...`) is all value and goes too.
 * Stops once the result is longer than `limit` (the caller cuts it).
 */
export function redactedQuery(query: string, limit: number): string {
  let kept = '';
  for (const pair of query.split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const name = equals < 0 ? pair : pair.slice(0, equals);
    let shown: string;
    if (equals < 0) shown = REDACTED;
    else if (HARMLESS_KEYS.has(name))
      shown = pair.length > name.length + 1 + KEPT_VALUE_LIMIT ? `${name}=${REDACTED}` : pair;
    else shown = PLAIN_NAME.test(name) ? `${name}=${REDACTED}` : REDACTED;
    kept += kept === '' ? shown : `&${shown}`;
    if (kept.length > limit) break;
  }
  return kept;
}
