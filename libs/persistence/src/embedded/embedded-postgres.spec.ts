import { access, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Pool } from 'pg';
import { createDataSource, dataSourceOptions } from '../data-source/data-source.factory';
import { migrations } from '../migrations';
import { pendingMigrations, runMigrations } from '../migrator/migrator';
import { DataDirLockedError } from './data-dir.lock';
import { type EmbeddedPostgres, startEmbeddedPostgres } from './embedded-postgres';

// One PGlite for the file: creating a fresh data directory (initdb) takes seconds.
describe('the embedded PostgreSQL', () => {
  let dataDir: string;
  let embedded: EmbeddedPostgres;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'fed-embedded-'));
    embedded = await startEmbeddedPostgres({ dataDir });
  }, 60_000);

  afterAll(async () => {
    await embedded?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('runs the migrations through pg and TypeORM, once even when two migrators race', async () => {
    const runs = await Promise.all([runMigrations(embedded.url), runMigrations(embedded.url)]);
    expect(runs.flat()).toEqual(migrations.map((migration) => migration.name));
    expect(await pendingMigrations(embedded.url)).toEqual([]);
  });

  it('listens only on a Unix socket in a directory no other user may enter', async () => {
    const socketDir = path.join(dataDir, 'run');
    expect(new URL(embedded.url).searchParams.get('host')).toBe(socketDir);
    expect((await stat(socketDir)).mode & 0o777).toBe(0o700);
    expect((await stat(path.join(socketDir, '.s.PGSQL.5432'))).isSocket()).toBe(true);
  });

  it('refuses a second start on the same data directory while the first holds it', async () => {
    const second = startEmbeddedPostgres({ dataDir });
    await expect(second).rejects.toBeInstanceOf(DataDirLockedError);
    await expect(second).rejects.toThrow(`${dataDir} is in use by process ${process.pid}`);
  });

  it('serves several pooled connections at once', async () => {
    const pool = new Pool({ connectionString: embedded.url, max: 5 });
    try {
      const clients = await Promise.all(Array.from({ length: 5 }, () => pool.connect()));
      const answers = await Promise.all(
        clients.map((client, i) => client.query<{ answer: number }>('SELECT $1::int * 2 AS answer', [i])),
      );
      clients.forEach((client) => client.release());
      expect(pool.totalCount).toBe(5);
      expect(answers.map((result) => result.rows[0].answer)).toEqual([0, 2, 4, 6, 8]);
    } finally {
      await pool.end();
    }
  });

  it('generates UUIDs with no extension installed', async () => {
    const pool = new Pool({ connectionString: embedded.url, max: 1 });
    try {
      const { rows } = await pool.query(
        "SELECT gen_random_uuid()::text AS id, (SELECT count(*) FROM pg_extension WHERE extname IN ('pgcrypto', 'uuid-ossp'))::int AS extensions",
      );
      expect(rows[0].id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(rows[0].extensions).toBe(0);
    } finally {
      await pool.end();
    }
  });

  it('keeps its rows when started again on the same data directory', async () => {
    await runMigrations(embedded.url);
    const before = await createDataSource(
      dataSourceOptions({ url: embedded.url, poolSize: 2, applicationName: 'test' }),
    );
    await before.query('CREATE TABLE memory.restart_probe (note text NOT NULL)');
    await before.query('INSERT INTO memory.restart_probe (note) VALUES ($1)', ['written before the restart']);
    await before.destroy();
    await embedded.stop();
    await expect(access(path.join(dataDir, 'pg.lock'))).rejects.toMatchObject({ code: 'ENOENT' });

    embedded = await startEmbeddedPostgres({ dataDir });
    const after = await createDataSource(
      dataSourceOptions({ url: embedded.url, poolSize: 2, applicationName: 'test' }),
    );
    try {
      expect(await after.query('SELECT note FROM memory.restart_probe')).toEqual([
        { note: 'written before the restart' },
      ]);
    } finally {
      await after.destroy();
    }
  }, 60_000);
});
