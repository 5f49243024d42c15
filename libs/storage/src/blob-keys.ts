import { type BlobRange } from './ports/blob-store';

// Keys become file paths in the filesystem store: one rule for both adapters. No leading dot rules out
// `.`, `..` and the store's own `.tmp` directory.
const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;
const MAX_KEY_LENGTH = 512;

/** No leading dot, no empty segment. */
export function assertBlobKey(key: string): void {
  if (typeof key !== 'string' || key.length === 0 || key.length > MAX_KEY_LENGTH) {
    throw new Error(`invalid blob key: ${JSON.stringify(key)}`);
  }
  if (!key.split('/').every((segment) => SEGMENT.test(segment))) {
    throw new Error(`invalid blob key: ${JSON.stringify(key)}`);
  }
}

/** A partial last segment is allowed. */
export function assertBlobPrefix(prefix: string): void {
  if (prefix === '') return;
  const segments = prefix.split('/');
  const last = segments.pop() ?? '';
  const whole = segments.every((segment) => SEGMENT.test(segment));
  const partial = last === '' || SEGMENT.test(last);
  if (typeof prefix !== 'string' || prefix.length > MAX_KEY_LENGTH || !whole || !partial) {
    throw new Error(`invalid blob key prefix: ${JSON.stringify(prefix)}`);
  }
}

export function assertBlobRange(range: BlobRange): void {
  const { start, end } = range;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start) {
    throw new RangeError(`invalid byte range ${start}-${end}`);
  }
}
