import { testServiceUrls } from '@fed/config';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';

/** Runs one statement on its own connection. */
export async function runSql<T extends Record<string, unknown> = Record<string, unknown>>(
  url: string,
  sql: string,
  values: unknown[] = [],
): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

/** A database of its own on the machine's PostgreSQL, dropped afterwards. */
export async function withScratchDatabase<T>(work: (url: string) => Promise<T>): Promise<T> {
  const admin = testServiceUrls().databaseUrl;
  const name = `fed_bench_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  await runSql(admin, `CREATE DATABASE "${name}"`);
  try {
    const url = new URL(admin);
    url.pathname = `/${name}`;
    return await work(url.toString());
  } finally {
    await runSql(admin, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  }
}
