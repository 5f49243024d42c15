import { createTestDatabase, type TestDatabase } from '../testing';
import { migrations } from '../migrations';
import { contextSchemas } from '../schemas';
import { pendingMigrations, revertLastMigration, runMigrations } from './migrator';

const allNames = migrations.map((migration) => migration.name);

async function withEmptyDatabase(test: (database: TestDatabase) => Promise<void>): Promise<void> {
  const database = await createTestDatabase({ migrated: false });
  try {
    await test(database);
  } finally {
    await database.drop();
  }
}

async function schemasIn(database: TestDatabase): Promise<string[]> {
  const rows: { schema_name: string }[] = await database.dataSource.query(
    'SELECT schema_name FROM information_schema.schemata WHERE schema_name = ANY($1) ORDER BY schema_name',
    [[...contextSchemas, 'platform']],
  );
  return rows.map((row) => row.schema_name);
}

async function appliedCount(database: TestDatabase): Promise<number> {
  const [row]: { count: string }[] = await database.dataSource.query('SELECT count(*) FROM platform.migrations');
  return Number(row.count);
}

describe('runMigrations', () => {
  it('applies every migration to an empty database and creates one schema per bounded context', () =>
    withEmptyDatabase(async (database) => {
      expect(await runMigrations(database.url)).toEqual(allNames);
      expect(await schemasIn(database)).toEqual([...contextSchemas, 'platform'].sort());
    }));

  it('applies nothing when run a second time', () =>
    withEmptyDatabase(async (database) => {
      await runMigrations(database.url);
      expect(await runMigrations(database.url)).toEqual([]);
      expect(await appliedCount(database)).toBe(allNames.length);
    }));

  it('applies each migration exactly once when two migrators start at the same time', () =>
    withEmptyDatabase(async (database) => {
      const runs = await Promise.all([runMigrations(database.url), runMigrations(database.url)]);
      expect(runs.flat()).toEqual(allNames);
      expect(await appliedCount(database)).toBe(allNames.length);
    }));
});

describe('pendingMigrations', () => {
  it('lists every migration on an empty database and none once they are applied', () =>
    withEmptyDatabase(async (database) => {
      expect(await pendingMigrations(database.url)).toEqual(allNames);
      await runMigrations(database.url);
      expect(await pendingMigrations(database.url)).toEqual([]);
    }));
});

describe('revertLastMigration', () => {
  it('reverts every migration newest first, leaving no context schema, and they apply again', () =>
    withEmptyDatabase(async (database) => {
      await runMigrations(database.url);
      const reverted: string[] = [];
      for (let name = await revertLastMigration(database.url); name; name = await revertLastMigration(database.url)) {
        reverted.push(name);
      }
      expect(reverted).toEqual([...allNames].reverse());
      expect(await schemasIn(database)).toEqual(['platform']);
      expect(await appliedCount(database)).toBe(0);
      expect(await runMigrations(database.url)).toEqual(allNames);
    }));
});
