import { type Command, InvalidArgumentError } from 'commander';
import { type AppConfig } from '@fed/config';
import {
  DEFAULT_ACTIVATE_IN_SECONDS,
  SigningKeyAdministration,
  keyEncryptionFor,
  signalSigningKeyRevocations,
  signingKeysServiceFor,
} from '@fed/identity';
import { withIdentity } from './database';
import { tellRunningServices } from './signals';

/** The service the admin API's /api/v1/admin/signing-keys calls, telling running services as platformctl can. */
function withSigningKeys<T>(work: (keys: SigningKeyAdministration) => Promise<T>): Promise<T> {
  return withIdentity(async (dataSource, config: AppConfig<'platformctl'>) => {
    // A key generated into DATA_DIR is only right for the embedded database it was made with.
    if (config.database.url && !config.signingKeys.encryptionKey) {
      throw new Error('KEY_ENCRYPTION_KEY must be set: it is the key auth-service uses');
    }
    const keys = signingKeysServiceFor(dataSource, await keyEncryptionFor(config), config);
    const revocations = {
      announce: (kid: string) =>
        tellRunningServices(config, (signals) =>
          signalSigningKeyRevocations(signals)
            .announce(kid)
            .then(() => {}),
        ),
    };
    return work(new SigningKeyAdministration(keys, revocations));
  });
}

const iso = (date: Date | null) => (date ? date.toISOString() : '-');

function parseSeconds(value: string): number {
  if (!/^[0-9]{1,7}$/.test(value)) throw new InvalidArgumentError('expected a whole number of seconds');
  return Number(value);
}

export function registerKeys(program: Command): void {
  const keys = program.command('keys').description('signing keys of the OpenID provider');

  keys
    .command('list')
    .description('list signing keys: next (published, not signing yet), active, retired (published), expired, revoked')
    .action(async () => {
      const rows = await withSigningKeys((service) => service.list());
      if (rows.length === 0) process.stdout.write('no signing keys yet (auth-service creates one at first start)\n');
      for (const row of rows) {
        process.stdout.write(
          `${row.kid}  ${row.state.padEnd(7)}  activates ${iso(row.activatesAt)}  retired ${iso(row.retiredAt)}  expires ${iso(row.expiresAt)}\n`,
        );
      }
    });

  keys
    .command('rotate')
    .description(
      'add a signing key: published now, signing after the lead; the current key stays published until its tokens expire',
    )
    .option(
      '--activate-in <seconds>',
      `seconds between publishing and signing (default ${DEFAULT_ACTIVATE_IN_SECONDS})`,
      parseSeconds,
    )
    .option('--now', 'sign with the new key at once (verifiers fetch it on first sight of its kid)')
    .action(async (options: { activateIn?: number; now?: boolean }) => {
      const lead = options.now ? 0 : (options.activateIn ?? DEFAULT_ACTIVATE_IN_SECONDS);
      const created = await withSigningKeys((service) => service.rotate(lead));
      process.stdout.write(`added ${created.kid} (${created.state}); signs from ${iso(created.activatesAt)}\n`);
    });

  keys
    .command('revoke <kid>')
    .description(
      'emergency withdrawal of a compromised key: out of the JWKS at once, its tokens refused everywhere; a key signing now is replaced at once',
    )
    .action(async (kid: string) => {
      const { revoked, replacement, announced } = await withSigningKeys((service) => service.revoke(kid));
      process.stdout.write(`revoked ${revoked.kid}\n`);
      if (replacement) process.stdout.write(`added ${replacement.kid} (${replacement.state}); signs from now\n`);
      if (!announced) {
        process.stdout.write(
          '(no REDIS_URL: auth-service leaves it out of the JWKS within 5 s; other running services refuse its tokens once they refetch the JWKS, within 10 minutes)\n',
        );
      }
    });
}
