import { type Command } from 'commander';
import { type RealmService, readRealmFile, realmServiceFor } from '@fed/identity';
import { withIdentity } from './database';
import { writeOwnerOnly } from './owner-only-file';
import { AnnouncedInvalidations, UNTOLD_INVALIDATION } from './signals';

function withRealm<T>(work: (realm: RealmService, invalidations: AnnouncedInvalidations) => Promise<T>): Promise<T> {
  return withIdentity((dataSource, config) => {
    const invalidations = new AnnouncedInvalidations(config);
    return work(realmServiceFor(dataSource, config, invalidations), invalidations);
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
      const input = await readRealmFile(file);
      const { report, told } = await withRealm(async (service, invalidations) => ({
        report: await service.import(input),
        told: invalidations.told,
      }));
      for (const kind of ['tenants', 'clients', 'users'] as const) {
        process.stdout.write(`${kind}: ${report[kind].created} created, ${report[kind].updated} updated\n`);
      }
      if (report.sessionsEnded.length > 0) {
        const untold = told ? '' : UNTOLD_INVALIDATION;
        process.stdout.write(`sessions ended of ${report.sessionsEnded.length} demoted or unapproved users${untold}\n`);
      }
      for (const { clientId, secret } of report.generatedSecrets) {
        process.stdout.write(`client_secret of ${clientId}: ${secret} (shown once; store it now)\n`);
      }
    });

  realm
    .command('export [file]')
    .description('write the realm as JSON (secrets only as hashes) to the file, or to standard output')
    .action(async (file?: string) => {
      const exported = await withRealm((service) => service.export());
      const text = `${JSON.stringify(exported, null, 2)}\n`;
      // Hashes of secrets and passwords: readable by the owner only, also when the file exists (its mode
      // would stay), and never half written.
      if (file) await writeOwnerOnly(file, text);
      else process.stdout.write(text);
    });
}
