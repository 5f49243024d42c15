import { type AppConfig, loadConfig } from '@fed/config';
import { identityEntities } from '@fed/identity';
import {
  DataDirLockedError,
  type EmbeddedPostgres,
  EmbeddedPostgresUnreachableError,
  createDataSource,
  dataSourceOptions,
  openEmbeddedPostgres,
  pendingMigrations,
  runMigrations,
} from '@fed/persistence';
import { type DataSource } from 'typeorm';

/** Which database a command uses: DATABASE_URL's, an embedded one opened here, or the running platform's (pid). */
export type DatabaseSource = { kind: 'external' } | { kind: 'embedded' } | { kind: 'platform'; pid: number };

/** Runs `work` on DATABASE_URL, else on DATA_DIR's embedded database (the running platform's, or opened here). */
export async function withDatabase<T>(
  work: (url: string, config: AppConfig<'platformctl'>, source: DatabaseSource) => Promise<T>,
): Promise<T> {
  const config = loadConfig('platformctl');
  if (config.database.url) return work(config.database.url, config, { kind: 'external' });
  const embedded = await openEmbedded(config.dataDir);
  const source: DatabaseSource = embedded.servedBy
    ? { kind: 'platform', pid: embedded.servedBy }
    : { kind: 'embedded' };
  try {
    return await work(embedded.url, config, source);
  } finally {
    await embedded.stop();
  }
}

// What the operator can do when DATA_DIR is held by a process whose database this one cannot use.
async function openEmbedded(dataDir: string): Promise<EmbeddedPostgres> {
  try {
    return await openEmbeddedPostgres({ dataDir });
  } catch (error) {
    if (error instanceof EmbeddedPostgresUnreachableError) {
      throw new Error(
        `the platform (pid ${error.holderPid}) holds DATA_DIR ${dataDir} but its database cannot be reached at ` +
          `${error.address} (${error.cause instanceof Error ? error.cause.message : String(error.cause)}): ` +
          'stop the platform and run the command again, or set DATABASE_URL',
        { cause: error },
      );
    }
    if (error instanceof DataDirLockedError) {
      throw new Error(
        `process ${error.holderPid} holds DATA_DIR ${dataDir} and shares its database with no other process ` +
          '(a platform still starting, or another platformctl command): run the command again once it has ' +
          'started or ended, stop that process, or set DATABASE_URL',
        { cause: error },
      );
    }
    throw error;
  }
}

/** Identity entities' data source; only an embedded database opened here is migrated, others are only checked. */
export function withIdentity<T>(
  work: (dataSource: DataSource, config: AppConfig<'platformctl'>) => Promise<T>,
): Promise<T> {
  return withEntities(identityEntities, work);
}

export function withEntities<T>(
  entities: NonNullable<Parameters<typeof dataSourceOptions>[0]['entities']>,
  work: (dataSource: DataSource, config: AppConfig<'platformctl'>) => Promise<T>,
): Promise<T> {
  return withDatabase(async (url, config, source) => {
    await ensureMigrated(url, source);
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

// Migrating under a running platform would change the schema beneath code that was built for the old
// one (this platformctl may be newer than the running platform): that is left to an explicit `migrate`.
async function ensureMigrated(url: string, source: DatabaseSource): Promise<void> {
  if (source.kind === 'embedded') {
    await runMigrations(url);
    return;
  }
  const pending = await pendingMigrations(url);
  if (pending.length === 0) return;
  if (source.kind === 'external') {
    throw new Error('the database schema is not up to date: run `platformctl migrate` first');
  }
  throw new Error(
    `the running platform (pid ${source.pid}) has not applied ${pending.length} migration(s) this platformctl ` +
      'knows: restart the platform (it migrates at start), or run `platformctl migrate`',
  );
}
