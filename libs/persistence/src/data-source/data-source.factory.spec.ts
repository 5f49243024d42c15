import { useTestDatabase } from '../testing';
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
});
