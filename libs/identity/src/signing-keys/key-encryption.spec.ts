import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { KeyDecryptionError, KeyEncryption } from './key-encryption';
import { KEY_ENCRYPTION_KEY_FILE, keyEncryptionKeyFromDataDir } from './key-encryption-key.file';

const keyA = randomBytes(32).toString('base64');
const keyB = randomBytes(32).toString('base64');
const secret = Buffer.from('-----BEGIN PRIVATE KEY----- not really -----END PRIVATE KEY-----');

describe('signing keys encrypted at rest', () => {
  it('decrypts what it encrypted, and the stored bytes do not contain the plaintext', () => {
    const encryption = new KeyEncryption(keyA);
    const sealed = encryption.encrypt(secret, 'kid-1');
    expect(sealed.includes(secret)).toBe(false);
    expect(encryption.decrypt(sealed, 'kid-1')).toEqual(secret);
  });

  it('encrypts the same key differently each time (random IV)', () => {
    const encryption = new KeyEncryption(keyA);
    expect(encryption.encrypt(secret, 'kid-1').equals(encryption.encrypt(secret, 'kid-1'))).toBe(false);
  });

  it('refuses another encryption key, another row and any altered byte', () => {
    const sealed = new KeyEncryption(keyA).encrypt(secret, 'kid-1');
    expect(() => new KeyEncryption(keyB).decrypt(sealed, 'kid-1')).toThrow(KeyDecryptionError);
    expect(() => new KeyEncryption(keyA).decrypt(sealed, 'kid-2')).toThrow(KeyDecryptionError);
    for (const index of [0, 5, 20, sealed.length - 1]) {
      const altered = Buffer.from(sealed);
      altered[index] = (altered[index] as number) ^ 1;
      expect(() => new KeyEncryption(keyA).decrypt(altered, 'kid-1')).toThrow(KeyDecryptionError);
    }
  });

  it('refuses an encryption key that is not 32 bytes', () => {
    expect(() => new KeyEncryption(randomBytes(16).toString('base64'))).toThrow(RangeError);
  });
});

describe('the encryption key kept in DATA_DIR (all-in-one)', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'fed-kek-'));
  });
  afterEach(() => rm(dataDir, { recursive: true, force: true }));

  it('is generated once, readable by its owner only, and reused', async () => {
    const first = await keyEncryptionKeyFromDataDir(dataDir);
    expect(Buffer.from(first, 'base64')).toHaveLength(32);
    expect((await stat(path.join(dataDir, KEY_ENCRYPTION_KEY_FILE))).mode & 0o777).toBe(0o600);
    expect(await keyEncryptionKeyFromDataDir(dataDir)).toBe(first);
    const [a, b] = await Promise.all([keyEncryptionKeyFromDataDir(dataDir), keyEncryptionKeyFromDataDir(dataDir)]);
    expect(a).toBe(first);
    expect(b).toBe(first);
  });

  it('refuses a file that does not hold 32 bytes of base64', async () => {
    await writeFile(path.join(dataDir, KEY_ENCRYPTION_KEY_FILE), 'short\n');
    await expect(keyEncryptionKeyFromDataDir(dataDir)).rejects.toThrow('does not hold 32 bytes');
    expect(await readFile(path.join(dataDir, KEY_ENCRYPTION_KEY_FILE), 'utf8')).toBe('short\n');
  });
});
