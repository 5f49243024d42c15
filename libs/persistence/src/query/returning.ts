import { type DataSource, type EntityManager } from 'typeorm';

/**
 * The rows of an `UPDATE` or `DELETE ... RETURNING`. TypeORM's `query()` answers those statements
 * with `[rows, affectedCount]` on PostgreSQL, but a `SELECT` or `INSERT` with plain rows; this
 * keeps callers from mixing the two up.
 */
export async function modifyReturning<T>(
  runner: Pick<DataSource | EntityManager, 'query'>,
  sql: string,
  parameters: unknown[] = [],
): Promise<T[]> {
  const result = (await runner.query(sql, parameters)) as [T[], number];
  return result[0];
}
