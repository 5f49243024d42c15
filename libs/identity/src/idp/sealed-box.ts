import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { type KeyEncryption } from '../signing-keys/key-encryption';

const FORMAT_VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class UnsealError extends Error {
  constructor(context: string) {
    super(`${context} cannot be decrypted: KEY_ENCRYPTION_KEY is not the key it was sealed with, or it was altered`);
    this.name = 'UnsealError';
  }
}

/**
 * AES-256-GCM under a per-purpose key derived from KEY_ENCRYPTION_KEY, with the owner (tenant, user, cookie) as
 * associated data so a ciphertext copied elsewhere does not open. Layout: version | iv | tag | ciphertext.
 */
export class SealedBox {
  private readonly key: Buffer;

  constructor(encryption: KeyEncryption, purpose: string) {
    this.key = encryption.derive(purpose);
  }

  seal(plaintext: string, context: string): Buffer {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return Buffer.concat([Buffer.of(FORMAT_VERSION), iv, cipher.getAuthTag(), ciphertext]);
  }

  open(sealed: Buffer, context: string): string {
    if (sealed.length < 1 + IV_BYTES + TAG_BYTES || sealed[0] !== FORMAT_VERSION) throw new UnsealError(context);
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, sealed.subarray(1, 1 + IV_BYTES));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(sealed.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(sealed.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]).toString(
        'utf8',
      );
    } catch {
      throw new UnsealError(context);
    }
  }
}
