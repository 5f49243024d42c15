import { useTestDatabase } from '../testing';
import { withAdminClient } from '../testing/admin-client';
import { Pool, type PoolConfig } from 'pg';
import type { DataSource } from 'typeorm';
import { createDataSource, dataSourceOptions } from './data-source.factory';

describe('dataSourceOptions', () => {
  const database = useTestDatabase();
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = await createDataSource(
      dataSourceOptions({
        url: database.url,
        poolSize: 2,
        applicationName: 'fed-options-test',
        statementTimeoutMs: 300,
        idleInTransactionTimeoutMs: 4_000,
      }),
    );
  });

  afterAll(async () => {
    await dataSource?.destroy();
  });

  it('gives every pooled connection its timeouts and name from the start, with no SET', async () => {
    const runners = [dataSource.createQueryRunner(), dataSource.createQueryRunner()];
    try {
      const settings = await Promise.all(
        runners.map((runner) =>
          runner.query(
            `SELECT current_setting('statement_timeout') AS statement,
                    current_setting('idle_in_transaction_session_timeout') AS idle,
                    current_setting('application_name') AS name,
                    pg_backend_pid() AS pid`,
          ),
        ),
      );
      expect(new Set(settings.map(([row]) => row.pid)).size).toBe(2);
      for (const [row] of settings)
        expect(row).toMatchObject({ statement: '300ms', idle: '4s', name: 'fed-options-test' });
    } finally {
      await Promise.all(runners.map((runner) => runner.release()));
    }
  });

  it('cancels a statement that outlives the statement timeout', async () => {
    await expect(dataSource.query('SELECT pg_sleep(2)')).rejects.toMatchObject({ driverError: { code: '57014' } });
  });
  it('survives the server ending a connection while it is checked out and not querying: no unheard error, the pool goes on', async () => {
    // The pool as TypeORM builds it from these options, holding a connection as a query runner does in the
    // moment between getting it and listening to it (or as any holder between two queries).
    const options = dataSourceOptions({ url: database.url, poolSize: 1, applicationName: 'fed-terminate-test' });
    const pool = new Pool({ connectionString: database.url, ...(options.extra as PoolConfig) });
    const unheard: unknown[] = [];
    const onUncaught = (error: unknown) => unheard.push(error);
    process.on('uncaughtException', onUncaught);
    try {
      const held = await pool.connect();
      const [{ pid }] = (await held.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows;
      // 57P01 "terminating connection due to administrator command", as a restart or failover sends it.
      await withAdminClient((admin) => admin.query('SELECT pg_terminate_backend($1)', [pid]));
      await new Promise((resolve) => setTimeout(resolve, 200));
      await expect(held.query('SELECT 1')).rejects.toThrow();
      held.release();
      expect((await pool.query<{ two: number }>('SELECT 2 AS two')).rows).toEqual([{ two: 2 }]);
    } finally {
      process.off('uncaughtException', onUncaught);
      await pool.end();
    }
    expect(unheard).toEqual([]);
  });
});
