import { Client } from 'pg';
import { pendingMigrations } from '../migrator/migrator';
import { databaseUrl, quoteIdentifier, withAdminClient } from './admin-client';
import { createTestDatabase, useTestDatabase } from './test-database';
import { newTestDatabaseName, prepareTestTemplate, testDatabaseCreatedAt } from './test-template';

const hour = 60 * 60 * 1000;

async function databaseExists(name: string): Promise<boolean> {
  const { rowCount } = await withAdminClient((admin) =>
    admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]),
  );
  return rowCount === 1;
}

async function databaseOid(name: string): Promise<string | undefined> {
  const { rows } = await withAdminClient((admin) =>
    admin.query<{ oid: string }>('SELECT oid::text FROM pg_database WHERE datname = $1', [name]),
  );
  return rows[0]?.oid;
}

async function createEmptyDatabase(name: string, comment?: string): Promise<void> {
  await withAdminClient(async (admin) => {
    await admin.query(`CREATE DATABASE ${quoteIdentifier(name)} TEMPLATE template0`);
    if (comment) await admin.query(`COMMENT ON DATABASE ${quoteIdentifier(name)} IS '${comment}'`);
  });
}

async function dropDatabase(name: string): Promise<void> {
  await withAdminClient((admin) => admin.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(name)} WITH (FORCE)`));
}

describe('createTestDatabase', () => {
  it('starts a clone with every migration applied', async () => {
    const database = await createTestDatabase();
    try {
      expect(await pendingMigrations(database.url)).toEqual([]);
      const [row] = await database.dataSource.query("SELECT to_regnamespace('conversations') IS NOT NULL AS present");
      expect(row.present).toBe(true);
    } finally {
      await database.drop();
    }
  });

  it('keeps clones independent: a table made in one is absent from another', async () => {
    const [first, second] = await Promise.all([createTestDatabase(), createTestDatabase()]);
    try {
      await first.dataSource.query('CREATE TABLE identity.clone_probe (id int)');
      const [inFirst] = await first.dataSource.query(
        "SELECT to_regclass('identity.clone_probe') IS NOT NULL AS present",
      );
      const [inSecond] = await second.dataSource.query(
        "SELECT to_regclass('identity.clone_probe') IS NOT NULL AS present",
      );
      expect(inFirst.present).toBe(true);
      expect(inSecond.present).toBe(false);
    } finally {
      await Promise.all([first.drop(), second.drop()]);
    }
  });

  it('drops the database, closing connections still open to it', async () => {
    const database = await createTestDatabase();
    const straggler = new Client({ connectionString: database.url });
    await straggler.connect();
    straggler.on('error', () => undefined);
    await database.drop();
    expect(database.dataSource.isInitialized).toBe(false);
    expect(await databaseExists(database.name)).toBe(false);
    await straggler.end().catch(() => undefined);
  });
});

describe('useTestDatabase', () => {
  const database = useTestDatabase();

  it('gives the test file its own connected database', async () => {
    const [row] = await database.dataSource.query('SELECT current_database() AS name');
    expect(row.name).toBe(database.name);
    expect(database.url).toBe(databaseUrl(database.name));
  });
});

describe('prepareTestTemplate', () => {
  it('reuses an up-to-date template instead of building it again', async () => {
    const template = await prepareTestTemplate();
    const oid = await databaseOid(template);
    expect(await prepareTestTemplate()).toBe(template);
    expect(await databaseOid(template)).toBe(oid);
  });

  it('drops test databases of crashed runs, but not young or connected ones', async () => {
    const abandoned = newTestDatabaseName(Date.now() - 7 * hour);
    const connected = newTestDatabaseName(Date.now() - 7 * hour);
    const young = newTestDatabaseName(Date.now() - hour);
    await Promise.all([abandoned, connected, young].map((name) => createEmptyDatabase(name)));
    const client = new Client({ connectionString: databaseUrl(connected) });
    await client.connect();
    try {
      await prepareTestTemplate();
      expect(await databaseExists(abandoned)).toBe(false);
      expect(await databaseExists(connected)).toBe(true);
      expect(await databaseExists(young)).toBe(true);
    } finally {
      await client.end();
      await Promise.all([abandoned, connected, young].map(dropDatabase));
    }
  });

  it('drops templates of other migrations once they are an hour old', async () => {
    const suffix = newTestDatabaseName().slice(-8);
    const old = `fed_template_old_${suffix}`;
    const recent = `fed_template_recent_${suffix}`;
    await createEmptyDatabase(old, `fed test template, created_at=${Date.now() - 2 * hour}`);
    await createEmptyDatabase(recent, `fed test template, created_at=${Date.now()}`);
    try {
      await prepareTestTemplate();
      expect(await databaseExists(old)).toBe(false);
      expect(await databaseExists(recent)).toBe(true);
    } finally {
      await Promise.all([old, recent].map(dropDatabase));
    }
  });
});

describe('test database names', () => {
  it('carry their creation time, to the second', () => {
    const createdAt = Date.UTC(2030, 0, 2, 3, 4, 5);
    expect(testDatabaseCreatedAt(newTestDatabaseName(createdAt))).toBe(createdAt);
    expect(testDatabaseCreatedAt('fed_test_handmade')).toBeUndefined();
  });
});
