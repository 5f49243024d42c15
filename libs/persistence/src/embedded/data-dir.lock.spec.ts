import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DataDirLockedError, lockDataDir } from './data-dir.lock';

describe('the data directory lock', () => {
  let dataDir: string;
  let lockPath: string;

  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'fed-lock-'));
    lockPath = path.join(dataDir, 'pg.lock');
  });

  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('records the pid of its holder and disappears on release', async () => {
    const lock = await lockDataDir(lockPath, dataDir);
    expect(await readFile(lockPath, 'utf8')).toBe(String(process.pid));
    await lock.release();
    await expect(readFile(lockPath, 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses a directory held by a live process, naming the directory and the pid', async () => {
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    try {
      await writeFile(lockPath, String(holder.pid));
      const attempt = lockDataDir(lockPath, dataDir);
      await expect(attempt).rejects.toBeInstanceOf(DataDirLockedError);
      await expect(attempt).rejects.toThrow(`${dataDir} is in use by process ${holder.pid}`);
      expect(await readFile(lockPath, 'utf8')).toBe(String(holder.pid));
    } finally {
      holder.kill();
    }
  });

  it('takes over a lock left by a process that is gone', async () => {
    const { pid: deadPid } = spawnSync(process.execPath, ['-e', '']);
    await writeFile(lockPath, String(deadPid));
    const lock = await lockDataDir(lockPath, dataDir);
    expect(await readFile(lockPath, 'utf8')).toBe(String(process.pid));
    await lock.release();
  });

  it('lets exactly one of two simultaneous attempts take the lock', async () => {
    const attempts = await Promise.allSettled([lockDataDir(lockPath, dataDir), lockDataDir(lockPath, dataDir)]);
    const won = attempts.filter((attempt) => attempt.status === 'fulfilled');
    const refused = attempts.filter((attempt) => attempt.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(refused.map((attempt) => attempt.reason)).toEqual([expect.any(DataDirLockedError)]);
    await won[0].value.release();
  });

  it('does not remove a lock that another process holds by then', async () => {
    const lock = await lockDataDir(lockPath, dataDir);
    await writeFile(lockPath, '1');
    await lock.release();
    expect(await readFile(lockPath, 'utf8')).toBe('1');
  });
});
