import type { DataSource } from 'typeorm';
import { createDataSource, dataSourceOptions, type PersistenceOptions } from '../data-source/data-source.factory';
import { databaseUrl, quoteIdentifier, templateDatabaseName, withAdminClient } from './admin-client';
import { newTestDatabaseName, prepareTestTemplate } from './test-template';

export interface TestDatabaseOptions {
  entities?: PersistenceOptions['entities'];
  /** false: an empty database, for testing migrations themselves. */
  migrated?: boolean;
}

export interface TestDatabase {
  name: string;
  url: string;
  dataSource: DataSource;
  /** Even while others are connected to it. */
  drop(): Promise<void>;
}

// A clone of the migrated template per test file, so files run in parallel without sharing rows.
export async function createTestDatabase(options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  const name = newTestDatabaseName();
  await createDatabase(name, options.migrated === false ? 'template0' : templateDatabaseName());
  const url = databaseUrl(name);
  const drop = (dataSource?: DataSource) => dropTestDatabase(name, dataSource);
  try {
    const dataSource = await createDataSource(
      dataSourceOptions({ url, poolSize: 4, applicationName: 'fed-test', entities: options.entities }),
    );
    return { name, url, dataSource, drop: () => drop(dataSource) };
  } catch (error) {
    await drop();
    throw error;
  }
}

// Missing without Jest's globalSetup: build it.
async function createDatabase(name: string, template: string): Promise<void> {
  const create = () =>
    withAdminClient((admin) =>
      admin.query(`CREATE DATABASE ${quoteIdentifier(name)} TEMPLATE ${quoteIdentifier(template)}`),
    );
  try {
    await create();
  } catch (error) {
    if ((error as { code?: string }).code !== '3D000' || template === 'template0') throw error;
    await prepareTestTemplate();
    await create();
  }
}

async function dropTestDatabase(name: string, dataSource?: DataSource): Promise<void> {
  if (dataSource?.isInitialized) await dataSource.destroy();
  await withAdminClient((admin) => admin.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(name)} WITH (FORCE)`));
}

export type TestDatabaseHandle = Pick<TestDatabase, 'name' | 'url' | 'dataSource'>;

// beforeAll/afterAll: read the handle inside tests.
export function useTestDatabase(options: TestDatabaseOptions = {}): TestDatabaseHandle {
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    database = await createTestDatabase(options);
  });
  afterAll(async () => {
    await database?.drop();
  });
  const current = (): TestDatabase => {
    if (!database) throw new Error('The test database exists only inside tests (after beforeAll).');
    return database;
  };
  return {
    get name() {
      return current().name;
    },
    get url() {
      return current().url;
    },
    get dataSource() {
      return current().dataSource;
    },
  };
}
