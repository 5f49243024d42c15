// What of a query string may be written down (the access log, spans): codes, tokens, client secrets,
// id token hints, states and API keys ride in queries.

export const REDACTED = '[redacted]';

const KEPT_VALUE_LIMIT = 64;
// Query parameters whose values are never secret (pages, day ranges, display modes): kept as sent.
const HARMLESS_KEYS = new Set(['limit', 'page', 'from', 'to', 'mode', 'cursor']);
// Any other parameter keeps its name when the name is a plain word, never its value.
const PLAIN_NAME = /^[A-Za-z][A-Za-z0-9_.-]{0,31}$/;

/**
 * A query (without its `?`) reduced to what cannot be a secret: the values of a few harmless keys;
 * every other value becomes `[redacted]`, a name that is not a plain word goes too, and a bare item
 * (`?sk-live-...`, all value) is only `[redacted]`. Stops once the result is longer than `limit`
 * (the caller cuts it). Empty when nothing is left.
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
