import { type DataSource, type EntityManager } from 'typeorm';

/** On PostgreSQL TypeORM's `query()` answers `UPDATE`/`DELETE ... RETURNING` with `[rows, affectedCount]`, not rows. */
export async function modifyReturning<T>(
  runner: Pick<DataSource | EntityManager, 'query'>,
  sql: string,
  parameters: unknown[] = [],
): Promise<T[]> {
  const result = (await runner.query(sql, parameters)) as [T[], number];
  return result[0];
}
