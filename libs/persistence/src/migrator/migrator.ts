import { type DataSource, MigrationExecutor } from 'typeorm';
import { createDataSource, dataSourceOptions } from '../data-source/data-source.factory';
import { platformSchema } from '../schemas';

// Any fixed number: every migrator of every version takes the same lock.
const migrationLockKey = '7305146283409512331';

// TypeORM's runMigrations() reads the pending list before its transaction starts, so two processes both
// apply it. Here everything runs in one transaction that first takes pg_advisory_xact_lock: a second
// migrator waits, then finds nothing pending. The lock ends with the transaction (PGlite has one session).
async function withMigrationLock<T>(url: string, work: (executor: MigrationExecutor) => Promise<T>): Promise<T> {
  const dataSource = await migrationDataSource(url);
  const queryRunner = dataSource.createQueryRunner();
  try {
    await queryRunner.startTransaction();
    await queryRunner.query('SELECT pg_advisory_xact_lock($1::bigint)', [migrationLockKey]);
    await queryRunner.query(`CREATE SCHEMA IF NOT EXISTS "${platformSchema}"`);
    const executor = new MigrationExecutor(dataSource, queryRunner);
    executor.transaction = 'all';
    const result = await work(executor);
    await queryRunner.commitTransaction();
    return result;
  } catch (error) {
    if (queryRunner.isTransactionActive) await queryRunner.rollbackTransaction();
    throw error;
  } finally {
    await queryRunner.release();
    await dataSource.destroy();
  }
}

// Migrations may run long statements (an index on a big table): no statement timeout here.
function migrationDataSource(url: string): Promise<DataSource> {
  return createDataSource(
    dataSourceOptions({ url, poolSize: 1, applicationName: 'fed-migrate', statementTimeoutMs: 0 }),
  );
}

/** One transaction; the names applied, oldest first. */
export async function runMigrations(url: string): Promise<string[]> {
  const applied = await withMigrationLock(url, (executor) => executor.executePendingMigrations());
  return applied.map((migration) => migration.name);
}

export async function pendingMigrations(url: string): Promise<string[]> {
  const dataSource = await migrationDataSource(url);
  try {
    const pending = await new MigrationExecutor(dataSource).getPendingMigrations();
    return pending.map((migration) => migration.name);
  } finally {
    await dataSource.destroy();
  }
}

/** Undefined when none is applied. */
export async function revertLastMigration(url: string): Promise<string | undefined> {
  return withMigrationLock(url, async (executor) => {
    const [last] = await executor.getExecutedMigrations();
    if (last) await executor.undoLastMigration();
    return last?.name;
  });
}
