const UNSTORABLE = /[\u0000\uD800-\uDFFF]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * At most `limit` characters, without NUL or lone surrogates: PostgreSQL's text refuses both, and a
 * log batch goes in as one statement, so one such value would have the whole batch refused. The
 * usual text pays for one scan (`test`), not for the replacements.
 */
export function storableText(text: string, limit: number): string {
  const bounded = text.length > limit ? text.slice(0, limit) : text;
  if (!UNSTORABLE.test(bounded)) return bounded;
  return bounded.replaceAll('\u0000', '').replace(LONE_SURROGATE, '\uFFFD');
}
