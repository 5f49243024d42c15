// PostgreSQL text cannot hold NUL, and a lone surrogate cannot be encoded: neither may reach a query.
const UNSENDABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Search text from a source that is not validated (the model's tool arguments): unsendable characters become spaces. */
export function searchableText(text: string, maxLength: number): string {
  return text.slice(0, maxLength).replace(UNSENDABLE, ' ').trim();
}
