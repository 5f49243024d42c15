import { type Command, InvalidArgumentError } from 'commander';
import { type ServiceConfig } from '@fed/config';
import { KeyEncryption, SigningKeyRepository, SigningKeysService, keyEncryptionKeyFromDataDir } from '@fed/identity';
import { withIdentity } from './database';

// The default lead: verifiers refresh their JWKS copy at least every 10 minutes, so by then every
// one of them knows the new key before it signs anything.
const DEFAULT_ACTIVATE_IN_SECONDS = 600;

async function encryptionKey(config: ServiceConfig): Promise<string> {
  if (config.signingKeys.encryptionKey) return config.signingKeys.encryptionKey;
  // A locally generated key is only right for the embedded database it was made with.
  if (config.database.url) throw new Error('KEY_ENCRYPTION_KEY must be set: it is the key auth-service uses');
  return keyEncryptionKeyFromDataDir(config.dataDir);
}

function withSigningKeys<T>(work: (keys: SigningKeysService) => Promise<T>): Promise<T> {
  return withIdentity(async (dataSource, config) =>
    work(
      new SigningKeysService(new SigningKeyRepository(dataSource), new KeyEncryption(await encryptionKey(config)), {
        tokenTtlSeconds: config.signingKeys.tokenTtlSeconds,
        clockSkewSeconds: config.auth.clockSkewSeconds,
      }),
    ),
  );
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
    .description('list signing keys: next (published, not signing yet), active, retired (published), expired')
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
}
