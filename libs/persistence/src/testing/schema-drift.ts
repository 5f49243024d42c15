import { type PersistenceOptions } from '../data-source/data-source.factory';
import { createTestDatabase } from './test-database';

/**
 * The SQL TypeORM would run to make a freshly migrated database match `entities`: empty when the
 * migrations and the entities agree. Generate a new migration from what this returns.
 */
export async function schemaDrift(entities: NonNullable<PersistenceOptions['entities']>): Promise<string[]> {
  const database = await createTestDatabase({ entities });
  try {
    const sql = await database.dataSource.driver.createSchemaBuilder().log();
    return sql.upQueries.map((query) => query.query);
  } finally {
    await database.drop();
  }
}
