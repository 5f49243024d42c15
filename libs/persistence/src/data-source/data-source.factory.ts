import { Client, type ClientConfig } from 'pg';
import { DataSource, type DataSourceOptions, type EntitySchema, type LoggerOptions } from 'typeorm';
import { migrations } from '../migrations';
import { migrationsTable } from '../schemas';
import { SnakeNamingStrategy } from './snake-naming.strategy';

export type PostgresDataSourceOptions = Extract<DataSourceOptions, { type: 'postgres' }>;
export type EntityClass = abstract new (...args: never[]) => object;

export interface PersistenceOptions {
  url: string;
  poolSize: number;
  /** Shown in pg_stat_activity, so a DBA can tell the apps apart. */
  applicationName: string;
  entities?: readonly (EntityClass | EntitySchema)[];
  /** 0 disables. PGlite ignores it (and every startup parameter). */
  statementTimeoutMs?: number;
  idleInTransactionTimeoutMs?: number;
  connectTimeoutMs?: number;
  logging?: LoggerOptions;
}

export const defaultTimeouts = {
  statementTimeoutMs: 30_000,
  idleInTransactionTimeoutMs: 60_000,
  connectTimeoutMs: 10_000,
};

/**
 * pg-pool takes its error listener off a checked-out connection, so a server-side end between two queries
 * (restart, failover, `pg_terminate_backend`) emits an unheard `error`, which ends the process. Here the
 * error marks the connection unusable: the holder's next query fails, and the pool drops it on release.
 */
export class PoolConnection extends Client {
  constructor(config?: string | ClientConfig) {
    super(config);
    this.on('error', () => undefined);
  }
}

export function dataSourceOptions(options: PersistenceOptions): PostgresDataSourceOptions {
  return {
    type: 'postgres',
    url: options.url,
    applicationName: options.applicationName,
    entities: [...(options.entities ?? [])],
    migrations: [...migrations],
    migrationsTableName: migrationsTable,
    migrationsTransactionMode: 'all',
    migrationsRun: false,
    synchronize: false,
    namingStrategy: new SnakeNamingStrategy(),
    // gen_random_uuid() is built in since PostgreSQL 13 (and in PGlite): no superuser rights needed at boot.
    uuidExtension: 'pgcrypto',
    installExtensions: false,
    logging: options.logging ?? false,
    // In the startup packet: no SET after connect, no session state.
    extra: {
      max: options.poolSize,
      connectionTimeoutMillis: options.connectTimeoutMs ?? defaultTimeouts.connectTimeoutMs,
      statement_timeout: options.statementTimeoutMs ?? defaultTimeouts.statementTimeoutMs,
      idle_in_transaction_session_timeout:
        options.idleInTransactionTimeoutMs ?? defaultTimeouts.idleInTransactionTimeoutMs,
      keepAlive: true,
      Client: PoolConnection,
    },
  };
}

export async function createDataSource(options: DataSourceOptions): Promise<DataSource> {
  return new DataSource(options).initialize();
}
