export {
  createDataSource,
  dataSourceOptions,
  defaultTimeouts,
  type EntityClass,
  type PersistenceOptions,
  type PostgresDataSourceOptions,
} from './data-source/data-source.factory';
export { SnakeNamingStrategy, snakeCase } from './data-source/snake-naming.strategy';
export { DataDirLockedError } from './embedded/data-dir.lock';
export { ProcessFile, type ProcessRecord, isAlive } from './embedded/process-file';
export { makeOwnerOnly } from './embedded/owner-only';
export {
  EmbeddedPostgresUnreachableError,
  openEmbeddedPostgres,
  startEmbeddedPostgres,
  type EmbeddedPostgres,
  type EmbeddedPostgresOptions,
} from './embedded/embedded-postgres';
export { migrations, type MigrationClass } from './migrations';
export { pendingMigrations, revertLastMigration, runMigrations } from './migrator/migrator';
export { contextSchemas, migrationsTable, platformSchema, type ContextSchema } from './schemas';
export { modifyReturning } from './query/returning';
export { ownedBy, type RowOwner } from './query/owned-by';
export {
  BatchedLogWriter,
  type BatchedLogWriterOptions,
  type DropReason,
  type LogTable,
} from './log-writing/batched-log-writer';
export { storableText } from './log-writing/storable-text';
export { timeOrderedUuid } from './log-writing/time-ordered-uuid';
