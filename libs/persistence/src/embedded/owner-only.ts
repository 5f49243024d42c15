import { type Dirent } from 'node:fs';
import { chmod, lstat, mkdir, opendir } from 'node:fs/promises';
import path from 'node:path';

export const OWNER_ONLY_DIRECTORY = 0o700;
export const OWNER_ONLY_FILE = 0o600;

/** Symbolic links are never followed, so a link in DATA_DIR cannot make this change a file elsewhere. */
export async function makeOwnerOnly(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: OWNER_ONLY_DIRECTORY });
  const info = await lstat(dir);
  if (!info.isDirectory()) throw new Error(`${dir} is not a directory (DATA_DIR must be one, not a link to one).`);
  await restrict(dir, OWNER_ONLY_DIRECTORY, info.mode);
  await restrictTree(dir);
}

async function restrictTree(dir: string): Promise<void> {
  let entries: AsyncIterable<Dirent>;
  try {
    entries = await opendir(dir);
  } catch (error) {
    // Removed while walking (a checkpoint's temporary file): nothing to fix.
    if (isGone(error)) return;
    throw error;
  }
  for await (const entry of entries) {
    const entryPath = path.join(dir, entry.name);
    if (entry.isSymbolicLink()) continue;
    if (entry.isDirectory()) {
      await restrictPath(entryPath, OWNER_ONLY_DIRECTORY);
      await restrictTree(entryPath);
    } else {
      await restrictPath(entryPath, OWNER_ONLY_FILE);
    }
  }
}

async function restrictPath(entryPath: string, mode: number): Promise<void> {
  try {
    // The entry may have been replaced by a link since the directory was read.
    const info = await lstat(entryPath);
    if (info.isSymbolicLink()) return;
    await restrict(entryPath, mode, info.mode);
  } catch (error) {
    if (isGone(error)) return;
    throw error;
  }
}

async function restrict(entryPath: string, mode: number, current: number): Promise<void> {
  if ((current & 0o777) === mode) return;
  try {
    await chmod(entryPath, mode);
  } catch (error) {
    if (isGone(error)) return;
    throw new Error(
      `Could not make ${entryPath} readable by its owner only (mode ${mode.toString(8)}): ${(error as Error).message}. ` +
        'Every file under DATA_DIR must belong to the user the platform runs as.',
      { cause: error },
    );
  }
}

function isGone(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
