import { readFile, stat } from 'node:fs/promises';
import { RealmError } from './realm.service';

// Far above any real realm; a bigger file is a mistake, not a realm.
const MAX_REALM_FILE_BYTES = 64 * 1024 * 1024;

export async function readRealmFile(file: string): Promise<unknown> {
  const { size } = await stat(file);
  if (size > MAX_REALM_FILE_BYTES)
    throw new RealmError([`${file} is larger than ${MAX_REALM_FILE_BYTES / 1024 / 1024} MB`]);
  try {
    return JSON.parse(await readFile(file, 'utf8')) as unknown;
  } catch (error) {
    throw new RealmError([`${file} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`]);
  }
}
