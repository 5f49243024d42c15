// Text that PostgreSQL and JSON cannot keep exactly as given is refused, never silently altered:
// NUL (not storable in text columns) and unpaired UTF-16 surrogates (not valid Unicode).
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const CONTROL = /[\u0000-\u001f\u007f]/;

export function isStorableText(value: string): boolean {
  return !value.includes('\u0000') && !LONE_SURROGATE.test(value);
}

/** A single-line label (names, titles): storable, and without control characters. */
export function isPrintableLine(value: string): boolean {
  return isStorableText(value) && !CONTROL.test(value);
}
