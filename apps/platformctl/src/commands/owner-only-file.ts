import { randomBytes } from 'node:crypto';
import { type FileHandle, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';

/** Writes `file` as 0600 via a flushed temporary file renamed over it: atomic, and a link there is replaced. */
export async function writeOwnerOnly(file: string, content: string): Promise<void> {
  const target = path.resolve(file);
  const temporary = path.join(
    path.dirname(target),
    `.${path.basename(target)}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`,
  );
  let handle: FileHandle | undefined;
  try {
    // `wx`: a file of our own, created 0600 (never one planted there, never through a link).
    handle = await open(temporary, 'wx', 0o600);
    await handle.writeFile(content);
    await handle.sync();
    await handle.close();
    handle = undefined;
    await rename(temporary, target);
  } catch (error) {
    await handle?.close().catch(() => undefined);
    await rm(temporary, { force: true });
    throw error;
  }
}
