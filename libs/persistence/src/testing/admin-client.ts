import { testServiceUrls } from '@fed/config';
import { createHash } from 'node:crypto';
import { Client } from 'pg';
import { migrations } from '../migrations';

export function adminUrl(): string {
  return testServiceUrls().databaseUrl;
}

export function databaseUrl(database: string): string {
  const url = new URL(adminUrl());
  url.pathname = `/${database}`;
  return url.toString();
}

export async function withAdminClient<T>(work: (admin: Client) => Promise<T>): Promise<T> {
  const admin = new Client({ connectionString: adminUrl(), application_name: 'fed-test-admin' });
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}

// Names and bodies of the migrations: a migration edited before it lands also gets a new template.
export function templateDatabaseName(): string {
  const hash = createHash('sha256');
  for (const migration of migrations) {
    hash.update(`${migration.name}\n${migration.prototype.up.toString()}\n${migration.prototype.down.toString()}\n`);
  }
  return `${templatePrefix}${hash.digest('hex').slice(0, 16)}`;
}

export const templatePrefix = 'fed_template_';
export const testDatabasePrefix = 'fed_test_';

export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
