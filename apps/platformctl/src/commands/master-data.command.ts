import { type Command } from 'commander';
import {
  MasterDataError,
  type MasterDataKind,
  type MasterDataService,
  type MasterRecord,
  masterDataServiceFor,
} from '@fed/identity';
import { type DataSource } from 'typeorm';
import { withIdentity } from './database';

// Without --tenant: the platform-wide entries (every tenant sees them), as the platform operator's token.
function withMasterData<T>(
  tenant: string | undefined,
  work: (masterData: MasterDataService, tenantId: string | null) => Promise<T>,
): Promise<T> {
  return withIdentity(async (dataSource) =>
    work(masterDataServiceFor(dataSource), await tenantIdOf(dataSource, tenant)),
  );
}

// A tenant named on the command line: its name (as `clients create --tenant` takes it) or its id.
async function tenantIdOf(dataSource: DataSource, tenant: string | undefined): Promise<string | null> {
  if (tenant === undefined) return null;
  const [row] = (await dataSource.query(
    `SELECT "id" FROM "identity"."tenants" WHERE "name" = $1 OR "id"::text = $1 LIMIT 1`,
    [tenant],
  )) as { id: string }[];
  if (!row) throw new MasterDataError('tenant_not_found', `no tenant named ${JSON.stringify(tenant)}`);
  return row.id;
}

const describe = (record: MasterRecord) =>
  `${record.code}  ${JSON.stringify(record.label)}${record.tenantId === null ? '  (platform-wide)' : ''}`;

const TENANT = ['--tenant <tenant>', "a tenant's own entries (name or id); omitted: the platform-wide ones"] as const;

// `organizations` and `job-types`: the same four operations as the admin API (master:manage), on the same service.
function registerKind(program: Command, name: string, kind: MasterDataKind, noun: string): void {
  const command = program.command(name).description(`${noun}s (master data): codes of 1-50 letters, digits, - or _`);

  command
    .command('list')
    .description(`list ${noun}s by code (with --tenant: the tenant's and the platform-wide ones, as it sees them)`)
    .option(...TENANT)
    .action(async (options: { tenant?: string }) => {
      const records = await withMasterData(options.tenant, (masterData, tenant) => masterData.list(kind, tenant));
      if (records.length === 0) process.stdout.write(`no ${noun}s\n`);
      for (const record of records) process.stdout.write(`${describe(record)}\n`);
    });

  command
    .command('create <code> <label>')
    .description(`add a record`)
    .option(...TENANT)
    .action(async (code: string, label: string, options: { tenant?: string }) => {
      const record = await withMasterData(options.tenant, (masterData, tenant) =>
        masterData.create(kind, tenant, { code, label }),
      );
      process.stdout.write(`created ${describe(record)}\n`);
    });

  command
    .command('update <code> <label>')
    .description(`change a record's label (users who carry the code show the new one)`)
    .option(...TENANT)
    .action(async (code: string, label: string, options: { tenant?: string }) => {
      const record = await withMasterData(options.tenant, (masterData, tenant) =>
        masterData.update(kind, tenant, code, { label }),
      );
      process.stdout.write(`updated ${describe(record)}\n`);
    });

  command
    .command('delete <code>')
    .description(`remove a record that no user carries`)
    .option(...TENANT)
    .action(async (code: string, options: { tenant?: string }) => {
      await withMasterData(options.tenant, (masterData, tenant) => masterData.delete(kind, tenant, code));
      process.stdout.write(`deleted ${code}\n`);
    });
}

export function registerMasterData(program: Command): void {
  registerKind(program, 'organizations', 'organization', 'organization');
  registerKind(program, 'job-types', 'jobType', 'job type');
}
