import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const FORMAT_VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class KeyDecryptionError extends Error {
  constructor(kid: string) {
    super(
      `signing key ${kid} cannot be decrypted: KEY_ENCRYPTION_KEY is not the key it was encrypted with (or the row was altered)`,
    );
    this.name = 'KeyDecryptionError';
  }
}

/** AES-256-GCM with the key id as associated data, so a ciphertext copied onto another row does not decrypt. */
export class KeyEncryption {
  private readonly key: Buffer;

  constructor(keyBase64: string) {
    this.key = Buffer.from(keyBase64, 'base64');
    if (this.key.length !== 32) throw new RangeError('KEY_ENCRYPTION_KEY must be 32 bytes');
  }

  encrypt(plaintext: Buffer, kid: string): Buffer {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(associatedData(kid));
    const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return Buffer.concat([Buffer.of(FORMAT_VERSION), iv, cipher.getAuthTag(), ciphertext]);
  }

  /** A 256-bit key for another purpose (cookie signing, CSRF tokens), derived with HKDF-SHA256. */
  derive(purpose: string): Buffer {
    return Buffer.from(hkdfSync('sha256', this.key, Buffer.alloc(0), `federation/${purpose}`, 32));
  }

  decrypt(sealed: Buffer, kid: string): Buffer {
    if (sealed.length <= 1 + IV_BYTES + TAG_BYTES || sealed[0] !== FORMAT_VERSION) throw new KeyDecryptionError(kid);
    const iv = sealed.subarray(1, 1 + IV_BYTES);
    const tag = sealed.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES);
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, iv);
      decipher.setAAD(associatedData(kid));
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(sealed.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]);
    } catch {
      throw new KeyDecryptionError(kid);
    }
  }
}

function associatedData(kid: string): Buffer {
  return Buffer.from(`fed.identity.signing-key:${kid}`, 'utf8');
}
