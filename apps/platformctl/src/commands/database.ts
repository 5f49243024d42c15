import { type ServiceConfig, loadConfig } from '@fed/config';
import { ApiKeysError } from '@fed/gateway';
import { ClientsError, RealmError, SigningKeysError, UsersError, identityEntities } from '@fed/identity';
import {
  createDataSource,
  dataSourceOptions,
  pendingMigrations,
  runMigrations,
  startEmbeddedPostgres,
} from '@fed/persistence';
import { type DataSource } from 'typeorm';

/** Runs `work` against DATABASE_URL, or against the embedded database under DATA_DIR when unset. */
export async function withDatabase<T>(work: (url: string, config: ServiceConfig) => Promise<T>): Promise<T> {
  const config = loadConfig('platformctl');
  if (config.database.url) return work(config.database.url, config);
  const embedded = await startEmbeddedPostgres({ dataDir: config.dataDir });
  try {
    return await work(embedded.url, config);
  } finally {
    await embedded.stop();
  }
}

/**
 * A data source with the identity context's entities, closed when `work` ends. The embedded database
 * is migrated first (as `platform` does at start); an external one must be migrated by the operator.
 */
export function withIdentity<T>(work: (dataSource: DataSource, config: ServiceConfig) => Promise<T>): Promise<T> {
  return withEntities(identityEntities, work);
}

/** Like withIdentity, with the given entities. */
export function withEntities<T>(
  entities: NonNullable<Parameters<typeof dataSourceOptions>[0]['entities']>,
  work: (dataSource: DataSource, config: ServiceConfig) => Promise<T>,
): Promise<T> {
  return withDatabase(async (url, config) => {
    if (!config.database.url) await runMigrations(url);
    else if ((await pendingMigrations(url)).length > 0) {
      throw new Error('the database schema is not up to date: run `platformctl migrate` first');
    }
    const dataSource = await createDataSource(
      dataSourceOptions({ url, poolSize: 2, applicationName: 'platformctl', entities }),
    );
    try {
      return await work(dataSource, config);
    } finally {
      await dataSource.destroy();
    }
  });
}

/** Refusals are the operator's input, not a failure of the tool: say why and exit 1. */
export async function reportingRefusals(work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (
      error instanceof ClientsError ||
      error instanceof UsersError ||
      error instanceof ApiKeysError ||
      error instanceof SigningKeysError
    ) {
      process.stderr.write(`refused (${error.code}): ${error.message}\n`);
    } else if (error instanceof RealmError) {
      process.stderr.write(`${error.message}\n`);
    } else {
      throw error;
    }
    process.exitCode = 1;
  }
}
