import { chmod, lstat, mkdir, mkdtemp, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Pool } from 'pg';
import { runMigrations } from '../migrator/migrator';
import { type EmbeddedPostgres, startEmbeddedPostgres } from './embedded-postgres';

/** Every entry under `dir` (itself included) that is not owner-only, as "mode path"; links are not followed. */
async function notOwnerOnly(dir: string): Promise<string[]> {
  const found: string[] = [];
  const visit = async (entry: string) => {
    const info = await lstat(entry);
    if (info.isSymbolicLink()) return;
    const mode = info.mode & 0o777;
    if (mode !== (info.isDirectory() ? 0o700 : 0o600)) found.push(`${mode.toString(8)} ${entry}`);
    if (info.isDirectory()) for (const name of await readdir(entry)) await visit(path.join(entry, name));
  };
  await visit(dir);
  return found;
}

/** What a data directory made by an older version looks like: directories 0755 or worse, files 0666. */
async function makeWorldReadable(dir: string): Promise<void> {
  const info = await lstat(dir);
  if (info.isSymbolicLink()) return;
  if (info.isDirectory()) {
    await chmod(dir, 0o777);
    for (const name of await readdir(dir)) await makeWorldReadable(path.join(dir, name));
  } else {
    await chmod(dir, 0o666);
  }
}

async function write(url: string, statements: string[]): Promise<void> {
  const pool = new Pool({ connectionString: url, max: 1 });
  try {
    for (const statement of statements) await pool.query(statement);
  } finally {
    await pool.end();
  }
}

// One initdb for the file (seconds): the fresh directory of the first test is the existing one of the second.
describe('the data directory of the embedded PostgreSQL: readable and writable by its owner only', () => {
  let parent: string;
  let dataDir: string;
  let embedded: EmbeddedPostgres | undefined;

  beforeAll(async () => {
    parent = await mkdtemp(path.join(tmpdir(), 'fed-owner-only-'));
    await chmod(parent, 0o755);
    dataDir = path.join(parent, 'nested', 'data');
  });

  afterAll(async () => {
    await embedded?.stop();
    await rm(parent, { recursive: true, force: true });
  });

  it('creates a fresh DATA_DIR with every directory 0700 and every file 0600, also those PostgreSQL writes later', async () => {
    embedded = await startEmbeddedPostgres({ dataDir, shared: true });
    expect(await notOwnerOnly(dataDir)).toEqual([]);
    // Files PostgreSQL creates while it runs: a table's relation files, WAL segments, a checkpoint's control file.
    await runMigrations(embedded.url);
    await write(embedded.url, [
      'CREATE TABLE owner_only_probe (id serial PRIMARY KEY, note text NOT NULL)',
      "INSERT INTO owner_only_probe (note) SELECT repeat('x', 1000) FROM generate_series(1, 20000)",
      'CREATE INDEX owner_only_probe_note ON owner_only_probe (note)',
      'CHECKPOINT',
    ]);
    expect(await notOwnerOnly(dataDir)).toEqual([]);
    await embedded.stop();
    embedded = undefined;
    expect(await notOwnerOnly(dataDir)).toEqual([]);
    // The missing parents it created are private too; the existing one is left as it was.
    expect((await stat(path.join(parent, 'nested'))).mode & 0o777).toBe(0o700);
    expect((await stat(parent)).mode & 0o777).toBe(0o755);
  }, 120_000);

  it('fixes the modes of an existing world-readable DATA_DIR at start, without following links out of it', async () => {
    const outside = path.join(parent, 'outside.txt');
    await writeFile(outside, 'not part of the data directory\n', { mode: 0o644 });
    await chmod(outside, 0o644);
    await mkdir(path.join(dataDir, 'blobs', 'files'), { recursive: true });
    await writeFile(path.join(dataDir, 'blobs', 'files', 'upload'), 'bytes');
    await symlink(outside, path.join(dataDir, 'link-to-outside'));
    await symlink(parent, path.join(dataDir, 'link-to-parent'));
    await makeWorldReadable(dataDir);
    expect((await notOwnerOnly(dataDir)).length).toBeGreaterThan(100);

    embedded = await startEmbeddedPostgres({ dataDir, shared: true });
    expect(await notOwnerOnly(dataDir)).toEqual([]);
    await write(embedded.url, [
      'CREATE TABLE after_restart (id int)',
      'INSERT INTO after_restart VALUES (1)',
      'CHECKPOINT',
    ]);
    expect(await notOwnerOnly(dataDir)).toEqual([]);
    expect((await stat(outside)).mode & 0o777).toBe(0o644);
    expect((await stat(parent)).mode & 0o777).toBe(0o755);
  }, 120_000);
});
