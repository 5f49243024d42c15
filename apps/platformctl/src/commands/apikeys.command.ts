import { type AppConfig } from '@fed/config';
import {
  type ApiKeyChangeNotifier,
  type ApiKeyFilter,
  type ApiKeyState,
  type ApiKeyUpdate,
  type ApiKeyView,
  type ApiKeysService,
  apiKeyStateOf,
  apiKeysServiceFor,
  gatewayEntities,
  publishApiKeyChange,
} from '@fed/gateway';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { withEntities } from './database';
import { tellRunningServices } from './signals';

/**
 * Running gateways cache keys: with REDIS_URL (or a running platform's signal relay) they hear of a change at
 * once; else they reread a key within 30 s. The service announces every change, as it does behind the HTTP API.
 */
class AnnouncedKeyChanges implements ApiKeyChangeNotifier {
  told = true;

  constructor(private readonly config: AppConfig<'platformctl'>) {}

  async keyChanged(keyId: string): Promise<void> {
    this.told &&= await tellRunningServices(this.config, (signals) => publishApiKeyChange(signals, keyId));
  }
}

const UNTOLD = ' (no REDIS_URL: running gateways see the change within 30 s)';

async function withApiKeys<T>(work: (keys: ApiKeysService) => Promise<T>): Promise<{ result: T; told: boolean }> {
  return withEntities(gatewayEntities, async (dataSource, config) => {
    const changes = new AnnouncedKeyChanges(config);
    const result = await work(apiKeysServiceFor(dataSource, { keyPrefix: config.gateway.keyPrefix, changes }));
    return { result, told: changes.told };
  });
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
  const state = apiKeyStateOf(key, new Date());
  return [
    key.id,
    JSON.stringify(key.name),
    key.keyHint,
    state === 'revoked'
      ? `revoked ${key.revokedAt?.toISOString()}`
      : state === 'expired'
        ? `expired ${key.expiresAt?.toISOString()}`
        : 'live',
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
        const { result } = await withApiKeys(async (keys) =>
          keys.create({
            tenantId: options.tenant === undefined ? undefined : await keys.tenantIdOf(options.tenant),
            name: options.name,
            allowedModels: options.model,
            rpmLimit: options.rpm,
            tpmLimit: options.tpm,
            dailyBudgetUsd: options.dailyBudget,
            allowedNetworks: options.network,
            expiresInDays: options.expiresInDays,
          }),
        );
        process.stdout.write(
          `id: ${result.key.id}\napi_key: ${result.apiKey}\n(the key is shown once; store it now)\n`,
        );
      },
    );

  apikeys
    .command('list')
    .description('list keys, newest first (never the keys themselves)')
    .addOption(new Option('--state <state>', 'only keys in this state').choices(['live', 'revoked', 'expired']))
    .option('--tenant <name>', 'only keys issued to this tenant (its name or id)')
    .option('--search <text>', 'only keys whose name contains this text (any letter case)')
    .action(async (options: { state?: ApiKeyState; tenant?: string; search?: string }) => {
      const { result } = await withApiKeys(async (service) => {
        const filter: ApiKeyFilter = { state: options.state, search: options.search };
        if (options.tenant !== undefined) filter.tenantId = await service.tenantIdOf(options.tenant);
        return service.list(filter);
      });
      if (result.length === 0) process.stdout.write('no keys\n');
      for (const key of result) process.stdout.write(`${describe(key)}\n`);
    });

  apikeys
    .command('update <idOrName>')
    .description('change a key that is not revoked (by id, or by name when one live key has it)')
    .option('--name <name>', 'a new name')
    .option('--model <name>', 'the models it may call, replacing the list; repeatable', collect)
    .option('--every-model', 'let it call every model')
    .option('--rpm <n>', 'requests per minute', positive('--rpm'))
    .option('--no-rpm', 'no request limit')
    .option('--tpm <n>', 'tokens (input and output) per minute', positive('--tpm'))
    .option('--no-tpm', 'no token limit')
    .option('--daily-budget <usd>', 'hard quota: US dollars per UTC day', dollars)
    .option('--no-daily-budget', 'no daily budget')
    .option('--network <cidr>', 'the networks it may be used from, replacing the list; repeatable', collect)
    .option('--any-network', 'let it be used from any network the gateway allows')
    .option('--expires-in-days <n>', 'it stops working this many days from now', positive('--expires-in-days'))
    .option('--no-expiry', 'it never expires')
    .action(
      async (
        idOrName: string,
        options: {
          name?: string;
          model?: string[];
          everyModel?: boolean;
          rpm?: number | false;
          tpm?: number | false;
          dailyBudget?: number | false;
          network?: string[];
          anyNetwork?: boolean;
          expiresInDays?: number;
          expiry?: false;
        },
      ) => {
        // commander sets a --no-x option's value to true by default: only false (given) or a number changes it.
        const limit = (value: number | boolean | undefined) =>
          value === false ? null : typeof value === 'number' ? value : undefined;
        const update: ApiKeyUpdate = {
          name: options.name,
          allowedModels: options.everyModel ? null : options.model,
          rpmLimit: limit(options.rpm),
          tpmLimit: limit(options.tpm),
          dailyBudgetUsd: limit(options.dailyBudget),
          allowedNetworks: options.anyNetwork ? null : options.network,
          expiresInDays: options.expiresInDays,
          ...(options.expiry === false ? { expiresAt: null } : {}),
        };
        const { result, told } = await withApiKeys(async (keys) => keys.update(idOrName, update));
        process.stdout.write(`${describe(result)}\n${told ? '' : `${UNTOLD.trim()}\n`}`);
      },
    );

  apikeys
    .command('revoke <idOrName>')
    .description('revoke a key (by id, or by name when one live key has it); it stops working at once')
    .action(async (idOrName: string) => {
      const { result, told } = await withApiKeys((keys) => keys.revoke(idOrName));
      process.stdout.write(`revoked ${result.id}${told ? '' : UNTOLD}\n`);
    });
}
