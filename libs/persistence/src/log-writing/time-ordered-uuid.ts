import { randomFillSync } from 'node:crypto';

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));
/** Drawn in bulk, as `crypto.randomUUID` does. */
const RANDOM_BYTES_PER_ID = 10;
const pool = Buffer.alloc(RANDOM_BYTES_PER_ID * 512);
let offset = pool.length;

/** UUIDv7 (RFC 9562): rows written together sit together in the primary-key index; inserts touch its newest pages. */
export function timeOrderedUuid(now = Date.now()): string {
  if (offset === pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const random = pool.subarray(offset, offset + RANDOM_BYTES_PER_ID);
  offset += RANDOM_BYTES_PER_ID;
  const time = now.toString(16).padStart(12, '0').slice(-12);
  const b = (index: number) => HEX[random[index] as number] as string;
  // Version 7 in the top nibble of byte 6, variant 10 in the top bits of byte 8.
  const version = HEX[0x70 | ((random[0] as number) & 0x0f)] as string;
  const variant = HEX[0x80 | ((random[2] as number) & 0x3f)] as string;
  return `${time.slice(0, 8)}-${time.slice(8)}-${version}${b(1)}-${variant}${b(3)}-${b(4)}${b(5)}${b(6)}${b(7)}${b(8)}${b(9)}`;
}
