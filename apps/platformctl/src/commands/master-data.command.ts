import { type Command } from 'commander';
import { type MasterDataKind, type MasterDataService, type MasterRecord, masterDataServiceFor } from '@fed/identity';
import { withIdentity } from './database';

function withMasterData<T>(work: (masterData: MasterDataService) => Promise<T>): Promise<T> {
  return withIdentity((dataSource) => work(masterDataServiceFor(dataSource)));
}

const describe = (record: MasterRecord) => `${record.code}  ${JSON.stringify(record.label)}`;

// `organizations` and `job-types`: the same four operations as the admin API (master:manage), on the same service.
function registerKind(program: Command, name: string, kind: MasterDataKind, noun: string): void {
  const command = program.command(name).description(`${noun}s (master data): codes of 1-50 letters, digits, - or _`);

  command
    .command('list')
    .description(`list ${noun}s by code`)
    .action(async () => {
      const records = await withMasterData((masterData) => masterData.list(kind));
      if (records.length === 0) process.stdout.write(`no ${noun}s\n`);
      for (const record of records) process.stdout.write(`${describe(record)}\n`);
    });

  command
    .command('create <code> <label>')
    .description(`add a record`)
    .action(async (code: string, label: string) => {
      const record = await withMasterData((masterData) => masterData.create(kind, { code, label }));
      process.stdout.write(`created ${describe(record)}\n`);
    });

  command
    .command('update <code> <label>')
    .description(`change a record's label (users who carry the code show the new one)`)
    .action(async (code: string, label: string) => {
      const record = await withMasterData((masterData) => masterData.update(kind, code, { label }));
      process.stdout.write(`updated ${describe(record)}\n`);
    });

  command
    .command('delete <code>')
    .description(`remove a record that no user carries`)
    .action(async (code: string) => {
      await withMasterData((masterData) => masterData.delete(kind, code));
      process.stdout.write(`deleted ${code}\n`);
    });
}

export function registerMasterData(program: Command): void {
  registerKind(program, 'organizations', 'organization', 'organization');
  registerKind(program, 'job-types', 'jobType', 'job type');
}
