import { type AppConfig } from '@fed/config';
import { type ApiKeyView, ApiKeysError, type ApiKeysService, apiKeysServiceFor, gatewayEntities } from '@fed/gateway';
import { type Command, InvalidArgumentError } from 'commander';
import { type DataSource } from 'typeorm';
import { withEntities } from './database';
import { tellRunningServices } from './signals';

function withApiKeys<T>(
  work: (keys: ApiKeysService, config: AppConfig<'platformctl'>, dataSource: DataSource) => Promise<T>,
): Promise<T> {
  return withEntities(gatewayEntities, (dataSource, config) =>
    work(apiKeysServiceFor(dataSource, { keyPrefix: config.gateway.keyPrefix }), config, dataSource),
  );
}

// `--tenant`: a tenant's name (as `clients create --tenant` takes it) or its id.
async function tenantIdOf(dataSource: DataSource, tenant: string): Promise<string> {
  const [row] = (await dataSource.query(
    `SELECT "id" FROM "identity"."tenants" WHERE "name" = $1 OR "id"::text = lower($1) LIMIT 1`,
    [tenant],
  )) as { id: string }[];
  if (!row) throw new ApiKeysError('invalid_tenant', `no tenant named ${JSON.stringify(tenant)}`);
  return row.id;
}

/** Running gateways cache keys: with REDIS_URL they hear of a change at once; else they reread a key within 30 s. */
function announce(config: AppConfig<'platformctl'>, keyId: string): Promise<boolean> {
  return tellRunningServices(config, (signals) =>
    signals.publish('config.changed', { version: 1, area: 'gateway.keys', id: keyId }),
  );
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

const positive = (what: string) => (value: string) => {
  if (!/^[0-9]+$/.test(value) || Number(value) < 1)
    throw new InvalidArgumentError(`${what} must be a positive integer`);
  return Number(value);
};

const dollars = (value: string) => {
  if (!/^[0-9]+(\.[0-9]{1,4})?$/.test(value)) throw new InvalidArgumentError('a number of dollars, at most 4 decimals');
  return Number(value);
};

function describe(key: ApiKeyView): string {
  const state = key.revokedAt
    ? `revoked ${key.revokedAt.toISOString()}`
    : key.expiresAt && key.expiresAt.getTime() <= Date.now()
      ? `expired ${key.expiresAt.toISOString()}`
      : 'live';
  return [
    key.id,
    JSON.stringify(key.name),
    key.keyHint,
    state,
    `models=${key.allowedModels?.join(',') ?? '*'}`,
    `rpm=${key.rpmLimit ?? '-'}`,
    `tpm=${key.tpmLimit ?? '-'}`,
    `daily_budget_usd=${key.dailyBudgetUsd ?? '-'}`,
    `networks=${key.allowedNetworks?.join(',') ?? '*'}`,
    `tenant=${key.tenantId ?? '-'}`,
    `created=${key.createdAt.toISOString()}`,
    ...(key.expiresAt ? [`expires=${key.expiresAt.toISOString()}`] : []),
  ].join('  ');
}

export function registerApiKeys(program: Command): void {
  const apikeys = program.command('apikeys').description('virtual API keys of the model gateway');

  apikeys
    .command('create')
    .description('create a key; it is shown once')
    .requiredOption('--name <name>', 'who or what uses it')
    .option('--model <name>', 'a model (name or alias) the key may call; repeatable (default: every model)', collect)
    .option('--rpm <n>', 'requests per minute', positive('--rpm'))
    .option('--tpm <n>', 'tokens (input and output) per minute', positive('--tpm'))
    .option('--daily-budget <usd>', 'hard quota: US dollars per UTC day', dollars)
    .option(
      '--network <cidr>',
      'a network the key may be used from; repeatable (default: any the gateway allows)',
      collect,
    )
    .option('--expires-in-days <n>', 'the key stops working after this many days', positive('--expires-in-days'))
    .option('--tenant <name>', "the tenant the key is issued to: its calls go to that tenant's gateway log")
    .action(
      async (options: {
        name: string;
        model?: string[];
        rpm?: number;
        tpm?: number;
        dailyBudget?: number;
        network?: string[];
        expiresInDays?: number;
        tenant?: string;
      }) => {
        const { key, apiKey } = await withApiKeys(async (keys, _config, dataSource) =>
          keys.create({
            tenantId: options.tenant === undefined ? undefined : await tenantIdOf(dataSource, options.tenant),
            name: options.name,
            allowedModels: options.model,
            rpmLimit: options.rpm,
            tpmLimit: options.tpm,
            dailyBudgetUsd: options.dailyBudget,
            allowedNetworks: options.network,
            expiresAt: options.expiresInDays ? new Date(Date.now() + options.expiresInDays * 86_400_000) : undefined,
          }),
        );
        process.stdout.write(`id: ${key.id}\napi_key: ${apiKey}\n(the key is shown once; store it now)\n`);
      },
    );

  apikeys
    .command('list')
    .description('list keys (never the keys themselves)')
    .action(async () => {
      const keys = await withApiKeys((service) => service.list());
      if (keys.length === 0) process.stdout.write('no keys\n');
      for (const key of keys) process.stdout.write(`${describe(key)}\n`);
    });

  apikeys
    .command('revoke <idOrName>')
    .description('revoke a key (by id, or by name when one live key has it); it stops working at once')
    .action(async (idOrName: string) => {
      const { id, told } = await withApiKeys(async (keys, config) => {
        const revoked = await keys.revoke(idOrName);
        return { id: revoked, told: await announce(config, revoked) };
      });
      process.stdout.write(
        `revoked ${id}${told ? '' : ' (no REDIS_URL: running gateways stop accepting it within 30 s)'}\n`,
      );
    });
}
