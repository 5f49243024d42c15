import { type Command } from 'commander';
import { RealmService, readRealmFile } from '@fed/identity';
import { writeFile } from 'node:fs/promises';
import { reportingRefusals, withIdentity } from './database';

function withRealm<T>(work: (realm: RealmService) => Promise<T>): Promise<T> {
  return withIdentity((dataSource, config) =>
    work(new RealmService(dataSource, { defaultTenantEndpoint: config.http.publicUrl })),
  );
}

export function registerRealm(program: Command): void {
  const realm = program
    .command('realm')
    .description('realm files: tenants, clients and users (docs/realm.schema.json)');

  realm
    .command('import <file>')
    .description('create or update what the file describes, all or nothing; running it again changes nothing')
    .action((file: string) =>
      reportingRefusals(async () => {
        const input = await readRealmFile(file);
        const report = await withRealm((service) => service.import(input));
        for (const kind of ['tenants', 'clients', 'users'] as const) {
          process.stdout.write(`${kind}: ${report[kind].created} created, ${report[kind].updated} updated\n`);
        }
        for (const { clientId, secret } of report.generatedSecrets) {
          process.stdout.write(`client_secret of ${clientId}: ${secret} (shown once; store it now)\n`);
        }
      }),
    );

  realm
    .command('export [file]')
    .description('write the realm as JSON (secrets only as hashes) to the file, or to standard output')
    .action(async (file?: string) => {
      const exported = await withRealm((service) => service.export());
      const text = `${JSON.stringify(exported, null, 2)}\n`;
      // Hashes of secrets and passwords: readable by the owner only.
      if (file) await writeFile(file, text, { mode: 0o600 });
      else process.stdout.write(text);
    });
}
