const UNSTORABLE = /[\u0000\uD800-\uDFFF]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * PostgreSQL's text refuses NUL and lone surrogates, and one such value would have the whole log batch
 * refused. The usual text pays for one scan, not for the replacements.
 */
export function storableText(text: string, limit: number): string {
  const bounded = text.length > limit ? text.slice(0, limit) : text;
  if (!UNSTORABLE.test(bounded)) return bounded;
  return bounded.replaceAll('\u0000', '').replace(LONE_SURROGATE, '\uFFFD');
}
