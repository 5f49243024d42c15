import { type PersistenceOptions } from '../data-source/data-source.factory';
import { createTestDatabase } from './test-database';

/** Empty when the migrations and the entities agree; else what a new migration must run. */
export async function schemaDrift(entities: NonNullable<PersistenceOptions['entities']>): Promise<string[]> {
  const database = await createTestDatabase({ entities });
  try {
    const sql = await database.dataSource.driver.createSchemaBuilder().log();
    return sql.upQueries.map((query) => query.query);
  } finally {
    await database.drop();
  }
}
