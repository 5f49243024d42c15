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
  /** 0 disables. Ignored by the embedded PostgreSQL (PGlite ignores startup parameters). */
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
 * pg-pool takes its error listener off a connection while the connection is checked out, so a connection the
 * server ends between two queries of its holder (a restart, a failover, `pg_terminate_backend`, a dropped test
 * database) emits an `error` nobody hears, and an unheard `error` ends the process. This connection always has a
 * listener: the error marks it unusable, its holder's next query fails with a connection error (answered as the
 * database being unreachable), and the pool drops it when it is released.
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
    // gen_random_uuid() is built in since PostgreSQL 13 (and in PGlite): no extension to create,
    // so the app never needs superuser rights at boot.
    uuidExtension: 'pgcrypto',
    installExtensions: false,
    logging: options.logging ?? false,
    // Sent in the startup packet of every pooled connection: no SET after connect, no session state.
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
