// Refused, never silently altered: NUL (not storable in text columns) and unpaired UTF-16 surrogates.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const CONTROL = /[\u0000-\u001f\u007f]/;

export function isStorableText(value: string): boolean {
  return !value.includes('\u0000') && !LONE_SURROGATE.test(value);
}

/** Storable, and without control characters. */
export function isPrintableLine(value: string): boolean {
  return isStorableText(value) && !CONTROL.test(value);
}
