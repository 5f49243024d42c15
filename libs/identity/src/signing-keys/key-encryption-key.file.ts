import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

export const KEY_ENCRYPTION_KEY_FILE = 'key-encryption-key';

/** All-in-one mode without KEY_ENCRYPTION_KEY; losing this file makes the stored signing keys unreadable. */
export async function keyEncryptionKeyFromDataDir(dataDir: string): Promise<string> {
  const file = path.join(dataDir, KEY_ENCRYPTION_KEY_FILE);
  try {
    return parse(await readFile(file, 'utf8'), file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await mkdir(dataDir, { recursive: true });
  const generated = randomBytes(32).toString('base64');
  try {
    // `wx`: if another process created it first, use theirs.
    await writeFile(file, `${generated}\n`, { mode: 0o600, flag: 'wx' });
    return generated;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return parse(await readFile(file, 'utf8'), file);
  }
}

function parse(content: string, file: string): string {
  const key = content.trim();
  if (Buffer.from(key, 'base64').length !== 32) throw new Error(`${file} does not hold 32 bytes of base64`);
  return key;
}
