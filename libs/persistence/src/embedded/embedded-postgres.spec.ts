import { spawn, spawnSync } from 'node:child_process';
import { access, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Pool } from 'pg';
import { createDataSource, dataSourceOptions } from '../data-source/data-source.factory';
import { migrations } from '../migrations';
import { pendingMigrations, runMigrations } from '../migrator/migrator';
import { DataDirLockedError } from './data-dir.lock';
import {
  type EmbeddedPostgres,
  EmbeddedPostgresUnreachableError,
  openEmbeddedPostgres,
  startEmbeddedPostgres,
} from './embedded-postgres';
import { ENDPOINT_FILE } from './embedded-postgres.endpoint';

// One PGlite for the file: creating a fresh data directory (initdb) takes seconds.
describe('the embedded PostgreSQL', () => {
  let dataDir: string;
  let embedded: EmbeddedPostgres;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'fed-embedded-'));
    embedded = await startEmbeddedPostgres({ dataDir, shared: true });
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

  it('tells other processes where it serves the database, in a file only its owner may read', async () => {
    const file = path.join(dataDir, ENDPOINT_FILE);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ version: 1, pid: process.pid, url: embedded.url });
  });

  it('lets a tool use the database its holder shares, and leaves it running when the tool lets go', async () => {
    const opened = await openEmbeddedPostgres({ dataDir });
    expect(opened).toMatchObject({ url: embedded.url, servedBy: process.pid });
    const pool = new Pool({ connectionString: opened.url, max: 1 });
    try {
      expect((await pool.query<{ answer: number }>('SELECT 41 + 1 AS answer')).rows).toEqual([{ answer: 42 }]);
    } finally {
      await pool.end();
    }
    await opened.stop();
    const still = new Pool({ connectionString: embedded.url, max: 1 });
    try {
      await expect(still.query('SELECT 1')).resolves.toBeDefined();
    } finally {
      await still.end();
    }
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

  // PGlite is one session: the server must give it to one connection from a query's first message to its
  // ReadyForQuery, else another connection's Parse replaces the unnamed statement between this one's Parse
  // and Bind (an error, or another query's rows when the shapes match), or its BEGIN lands mid-query.
  it('keeps concurrent parameterized queries and transactions of several connections apart', async () => {
    const pool = new Pool({ connectionString: embedded.url, max: 6 });
    try {
      await pool.query('CREATE TABLE interleaving (id int PRIMARY KEY, owner text NOT NULL)');
      const plain = async (worker: number) => {
        for (let i = 0; i < 150; i++) {
          const { rows } = await pool.query<{ a: string; b: number }>(
            worker % 2 === 0 ? 'SELECT $1::text AS a, $2::int AS b' : 'SELECT $2::int AS b, $1::text AS a',
            [`w${worker}-${i}`, i],
          );
          expect(rows).toEqual([{ a: `w${worker}-${i}`, b: i }]);
        }
      };
      const transactional = async (worker: number) => {
        for (let i = 0; i < 40; i++) {
          const client = await pool.connect();
          try {
            await client.query('BEGIN');
            await client.query('INSERT INTO interleaving (id, owner) VALUES ($1, $2)', [
              worker * 1000 + i,
              `t${worker}`,
            ]);
            // Every other transaction is rolled back: none of its rows may stay, nobody else's may go with it.
            await client.query(i % 2 === 0 ? 'COMMIT' : 'ROLLBACK');
          } finally {
            client.release();
          }
        }
      };
      await Promise.all([plain(0), plain(1), plain(2), transactional(3), transactional(4)]);
      const { rows } = await pool.query<{ owner: string; rows: number }>(
        'SELECT owner, count(*)::int AS rows FROM interleaving GROUP BY owner ORDER BY owner',
      );
      expect(rows).toEqual([
        { owner: 't3', rows: 20 },
        { owner: 't4', rows: 20 },
      ]);
    } finally {
      await pool.query('DROP TABLE IF EXISTS interleaving');
      await pool.end();
    }
  }, 60_000);

  it('goes on serving the others when a query fails or a connection leaves inside its transaction', async () => {
    const pool = new Pool({ connectionString: embedded.url, max: 4 });
    try {
      await pool.query('CREATE TABLE left_behind (id int PRIMARY KEY)');
      const leaving = await pool.connect();
      await leaving.query('BEGIN');
      await leaving.query('INSERT INTO left_behind (id) VALUES ($1)', [1]);
      // Its connection closed without COMMIT: the session is not held for it, and its row is not kept.
      leaving.release(true);
      const failing = Array.from({ length: 20 }, (_, i) =>
        pool.query('SELECT 1 / $1::int AS quotient', [i % 2]).then(
          (result) => result.rows[0].quotient as number,
          (error: { code?: string }) => error.code,
        ),
      );
      expect(await Promise.all(failing)).toEqual(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? '22012' : 1)));
      expect((await pool.query('SELECT count(*)::int AS rows FROM left_behind')).rows).toEqual([{ rows: 0 }]);
    } finally {
      await pool.query('DROP TABLE IF EXISTS left_behind');
      await pool.end();
    }
  }, 30_000);

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
    await expect(access(path.join(dataDir, ENDPOINT_FILE))).rejects.toMatchObject({ code: 'ENOENT' });

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

describe('opening the embedded PostgreSQL of a data directory from a tool', () => {
  let dataDir: string;

  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'fed-open-'));
  });

  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it("refuses with the holder's pid and socket when the database the holder shares does not answer", async () => {
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    try {
      const socketDir = path.join(dataDir, 'run');
      await writeFile(path.join(dataDir, 'pg.lock'), String(holder.pid));
      const url = `postgres://postgres@localhost/postgres?host=${encodeURIComponent(socketDir)}&port=5432`;
      await writeFile(path.join(dataDir, ENDPOINT_FILE), JSON.stringify({ version: 1, pid: holder.pid, url }));
      const attempt = openEmbeddedPostgres({ dataDir });
      await expect(attempt).rejects.toBeInstanceOf(EmbeddedPostgresUnreachableError);
      await expect(attempt).rejects.toMatchObject({
        holderPid: holder.pid,
        address: path.join(socketDir, '.s.PGSQL.5432'),
      });
    } finally {
      holder.kill();
    }
  });

  it('refuses a directory whose live holder shares no database, naming the holder', async () => {
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    try {
      await writeFile(path.join(dataDir, 'pg.lock'), String(holder.pid));
      await expect(openEmbeddedPostgres({ dataDir })).rejects.toThrow(
        new DataDirLockedError(dataDir, holder.pid as number),
      );
    } finally {
      holder.kill();
    }
  });

  // One start for both: a fresh data directory (initdb) takes seconds.
  it('ignores a file left by a holder that is gone and opens the directory itself, its socket in a private temporary directory when the data directory is too deep for one', async () => {
    const deep = path.join(dataDir, 'a-data-directory-nested-deeper-than-a-unix-socket-path-may-reach', 'data');
    await mkdir(deep, { recursive: true });
    const { pid: deadPid } = spawnSync(process.execPath, ['-e', '']);
    await writeFile(path.join(deep, 'pg.lock'), String(deadPid));
    const staleUrl = 'postgres://postgres@localhost/postgres?host=%2Fnowhere&port=5432';
    await writeFile(path.join(deep, ENDPOINT_FILE), JSON.stringify({ version: 1, pid: deadPid, url: staleUrl }));

    const opened = await openEmbeddedPostgres({ dataDir: deep });
    const socketDir = new URL(opened.url).searchParams.get('host') as string;
    try {
      expect(opened.servedBy).toBeUndefined();
      await expect(access(path.join(deep, ENDPOINT_FILE))).rejects.toMatchObject({ code: 'ENOENT' });
      expect(socketDir.startsWith(path.join(tmpdir(), 'fed-pg-'))).toBe(true);
      expect((await stat(socketDir)).mode & 0o777).toBe(0o700);
      const pool = new Pool({ connectionString: opened.url, max: 1 });
      try {
        await expect(pool.query('SELECT 1')).resolves.toBeDefined();
      } finally {
        await pool.end();
      }
    } finally {
      await opened.stop();
    }
    await expect(access(socketDir)).rejects.toMatchObject({ code: 'ENOENT' });
  }, 60_000);
});
