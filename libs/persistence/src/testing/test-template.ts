import { randomBytes } from 'node:crypto';
import type { Client } from 'pg';
import { runMigrations } from '../migrator/migrator';
import {
  databaseUrl,
  quoteIdentifier,
  templateDatabaseName,
  templatePrefix,
  testDatabasePrefix,
  withAdminClient,
} from './admin-client';

const templateLockKey = '7305146283409512332';
// Another checkout with other migrations may be running its tests on this server right now.
const staleTemplateAfterMs = 60 * 60 * 1000;
// From a run that crashed before its afterAll.
const abandonedTestDatabaseAfterMs = 6 * 60 * 60 * 1000;

// Safe when two runs start at once: the admin connection holds a session advisory lock until it ends.
export async function prepareTestTemplate(): Promise<string> {
  return withAdminClient(async (admin) => {
    await admin.query('SELECT pg_advisory_lock($1::bigint)', [templateLockKey]);
    const template = templateDatabaseName();
    if (!(await isReadyTemplate(admin, template))) await buildTemplate(admin, template);
    await dropStaleTemplates(admin, template);
    await dropAbandonedTestDatabases(admin);
    return template;
  });
}

// The flags are set last, so a half-built template is never reused.
async function isReadyTemplate(admin: Client, template: string): Promise<boolean> {
  const { rows } = await admin.query<{ ready: boolean }>(
    'SELECT datistemplate AND NOT datallowconn AS ready FROM pg_database WHERE datname = $1',
    [template],
  );
  return rows[0]?.ready === true;
}

// CREATE DATABASE ... TEMPLATE refuses a template with an open connection; ALLOW_CONNECTIONS false keeps none.
async function buildTemplate(admin: Client, template: string): Promise<void> {
  const name = quoteIdentifier(template);
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${name} TEMPLATE template0`);
  await runMigrations(databaseUrl(template));
  await admin.query(`COMMENT ON DATABASE ${name} IS 'fed test template, created_at=${Date.now()}'`);
  await admin.query(`ALTER DATABASE ${name} WITH IS_TEMPLATE true ALLOW_CONNECTIONS false`);
}

async function dropStaleTemplates(admin: Client, current: string): Promise<void> {
  const { rows } = await admin.query<{ datname: string; comment: string | null }>(
    `SELECT datname, shobj_description(oid, 'pg_database') AS comment
       FROM pg_database WHERE starts_with(datname, $1) AND datname <> $2`,
    [templatePrefix, current],
  );
  const stale = rows.filter((row) => Date.now() - createdAt(row.comment) > staleTemplateAfterMs);
  for (const { datname } of stale) {
    const name = quoteIdentifier(datname);
    await admin.query(`ALTER DATABASE ${name} WITH IS_TEMPLATE false`);
    await dropIfUnused(admin, datname);
  }
}

async function dropAbandonedTestDatabases(admin: Client): Promise<void> {
  const { rows } = await admin.query<{ datname: string }>(
    'SELECT datname FROM pg_database WHERE starts_with(datname, $1)',
    [testDatabasePrefix],
  );
  const abandoned = rows.filter(({ datname }) => {
    const createdAtMs = testDatabaseCreatedAt(datname);
    return createdAtMs !== undefined && Date.now() - createdAtMs > abandonedTestDatabaseAfterMs;
  });
  for (const { datname } of abandoned) await dropIfUnused(admin, datname);
}

// Without FORCE: a database in use is left alone. Checked first: a DROP that meets a connection waits 5 s.
async function dropIfUnused(admin: Client, database: string): Promise<void> {
  const { rowCount } = await admin.query('SELECT 1 FROM pg_stat_activity WHERE datname = $1', [database]);
  if (rowCount !== 0) return;
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(database)}`);
  } catch (error) {
    if ((error as { code?: string }).code !== '55006') throw error;
  }
}

// Made by hand or by an older helper: old enough to go.
function createdAt(comment: string | null): number {
  const match = /created_at=(\d+)/.exec(comment ?? '');
  return match ? Number(match[1]) : 0;
}

// PostgreSQL does not record a database's age, so the name holds it.
export function newTestDatabaseName(now = Date.now()): string {
  return `${testDatabasePrefix}${Math.floor(now / 1000)}_${randomBytes(4).toString('hex')}`;
}

export function testDatabaseCreatedAt(database: string): number | undefined {
  const match = new RegExp(`^${testDatabasePrefix}(\\d+)_[a-z0-9]+$`).exec(database);
  return match ? Number(match[1]) * 1000 : undefined;
}
