import { type Command } from 'commander';
import { RealmError, RealmService, identityEntities, readRealmFile } from '@fed/identity';
import { createDataSource, dataSourceOptions } from '@fed/persistence';
import { writeFile } from 'node:fs/promises';
import { withDatabase } from './database';

function withRealm<T>(work: (realm: RealmService) => Promise<T>): Promise<T> {
  return withDatabase(async (url, config) => {
    const dataSource = await createDataSource(
      dataSourceOptions({ url, poolSize: 2, applicationName: 'platformctl', entities: identityEntities }),
    );
    try {
      return await work(new RealmService(dataSource, { defaultTenantEndpoint: config.http.publicUrl }));
    } finally {
      await dataSource.destroy();
    }
  });
}

export function registerRealm(program: Command): void {
  const realm = program
    .command('realm')
    .description('realm files: tenants, clients and users (docs/realm.schema.json)');

  realm
    .command('import <file>')
    .description('create or update what the file describes, all or nothing; running it again changes nothing')
    .action(async (file: string) => {
      try {
        const input = await readRealmFile(file);
        const report = await withRealm((service) => service.import(input));
        for (const kind of ['tenants', 'clients', 'users'] as const) {
          process.stdout.write(`${kind}: ${report[kind].created} created, ${report[kind].updated} updated\n`);
        }
        for (const { clientId, secret } of report.generatedSecrets) {
          process.stdout.write(`client_secret of ${clientId}: ${secret} (shown once; store it now)\n`);
        }
      } catch (error) {
        if (!(error instanceof RealmError)) throw error;
        process.stderr.write(`${error.message}\n`);
        process.exitCode = 1;
      }
    });

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
