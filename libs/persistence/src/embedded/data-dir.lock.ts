import { randomBytes } from 'node:crypto';
import { link, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { isAlive } from './process-file';

export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holderPid: number,
  ) {
    super(
      `The embedded PostgreSQL data in ${dataDir} is in use by process ${holderPid}` +
        `${holderPid === process.pid ? ' (this process)' : ''}. ` +
        `Stop that process, or give this one another data directory.`,
    );
    this.name = 'DataDirLockedError';
  }
}

export interface DataDirLock {
  release(): Promise<void>;
}

// Two processes would corrupt a PGlite data directory. A lock whose pid is gone is stale and taken over.
export async function lockDataDir(lockPath: string, dataDir: string): Promise<DataDirLock> {
  for (let attempt = 0; attempt < 5; attempt++) {
    if (await createLockFile(lockPath)) return { release: () => releaseLock(lockPath) };
    const holderPid = await readHolderPid(lockPath);
    if (holderPid !== undefined && isAlive(holderPid)) throw new DataDirLockedError(dataDir, holderPid);
    await removeStaleLock(lockPath);
  }
  throw new Error(`Could not take the lock ${lockPath}: other processes keep racing for it.`);
}

// link() fails if the lock exists, so the lock file appears atomically and never without its pid.
async function createLockFile(lockPath: string): Promise<boolean> {
  const draft = privateName(lockPath, 'draft');
  await writeFile(draft, String(process.pid), { mode: 0o600 });
  try {
    await link(draft, lockPath);
    return true;
  } catch (error) {
    if (errorCode(error) === 'EEXIST') return false;
    throw error;
  } finally {
    await unlink(draft);
  }
}

/** Undefined when nobody holds it (no lock, or a stale one). */
export async function liveHolderOf(lockPath: string): Promise<number | undefined> {
  const pid = await readHolderPid(lockPath);
  return pid !== undefined && isAlive(pid) ? pid : undefined;
}

async function readHolderPid(lockPath: string): Promise<number | undefined> {
  try {
    const pid = Number.parseInt(await readFile(lockPath, 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    throw error;
  }
}

// Renamed away first: of two processes finding the same stale lock only one rename succeeds, and a
// lock created meanwhile is put back instead of deleted.
async function removeStaleLock(lockPath: string): Promise<void> {
  const moved = privateName(lockPath, 'stale');
  try {
    await rename(lockPath, moved);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return;
    throw error;
  }
  const pid = await readHolderPid(moved);
  if (pid !== undefined && isAlive(pid)) await link(moved, lockPath).catch(() => undefined);
  await unlink(moved);
}

async function releaseLock(lockPath: string): Promise<void> {
  if ((await readHolderPid(lockPath)) === process.pid) await unlink(lockPath);
}

// Unique even between two starts in the same process.
function privateName(lockPath: string, purpose: string): string {
  return `${lockPath}.${process.pid}-${randomBytes(4).toString('hex')}.${purpose}`;
}

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}
