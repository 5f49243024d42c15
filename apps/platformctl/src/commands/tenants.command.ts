import { type Command, InvalidArgumentError } from 'commander';
import {
  IDP_CALLBACK_PATH,
  type MappedField,
  type TenantIdpView,
  type TenantIdpsService,
  idpSecretsKeyFor,
  mappedFields,
  tenantIdpsServiceFor,
} from '@fed/identity';
import { withIdentity } from './database';

function withIdentityProviders<T>(work: (service: TenantIdpsService) => Promise<T>): Promise<T> {
  return withIdentity(async (dataSource, config) =>
    work(tenantIdpsServiceFor(dataSource, await idpSecretsKeyFor(config))),
  );
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

function collectClaim(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const at = value.indexOf('=');
  const field = value.slice(0, at);
  if (at < 1 || !(mappedFields as readonly string[]).includes(field)) {
    throw new InvalidArgumentError(`expected FIELD=CLAIM, FIELD one of ${mappedFields.join(', ')}`);
  }
  return { ...previous, [field as MappedField]: value.slice(at + 1) };
}

// A secret on the command line would show in `ps` and shell history: read it from standard input.
async function readSecret(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

function print(view: TenantIdpView): void {
  const claims = Object.entries(view.claims).map(([field, claim]) => `${field}=${claim}`);
  process.stdout.write(
    [
      `tenant: ${view.tenant}`,
      `issuer: ${view.issuer}`,
      `client_id: ${view.clientId}`,
      'client_secret: (stored encrypted; never shown)',
      `scopes: ${view.scopes.join(' ')}`,
      `domains: ${view.domains.join(' ') || '-'}`,
      `claims: ${claims.join(' ')}`,
      `redirect_uri to register upstream: {AUTH_URL}${IDP_CALLBACK_PATH}`,
      `updated: ${view.updatedAt.toISOString()}`,
    ].join('\n') + '\n',
  );
}

export function registerTenants(program: Command): void {
  const tenants = program.command('tenants').description('tenants of the realm');
  const idp = tenants
    .command('idp')
    .description(
      "an enterprise tenant's own OpenID provider, where its staff sign in (docs/tenant-identity-providers.md)",
    );

  idp
    .command('set <tenant>')
    .description(
      'connect the tenant to its provider, or change the connection (the stored secret is kept unless a new one is given)',
    )
    .requiredOption('--issuer <url>', 'issuer URL of the provider, exactly as its discovery document states it')
    .requiredOption('--client-id <id>', 'client id registered at the provider')
    .option('--client-secret-stdin', 'read the client secret from standard input (required the first time)')
    .option('--scope <scope>', 'scope to ask for (repeatable; default: openid profile email)', collect)
    .option(
      '--domain <domain>',
      'e-mail domain whose users sign in there (repeatable; replaces the list; without it the list is kept)',
      collect,
    )
    .option('--claim <field=claim>', `upstream claim of a field (repeatable): ${mappedFields.join(', ')}`, collectClaim)
    .action(
      async (
        tenant: string,
        options: {
          issuer: string;
          clientId: string;
          clientSecretStdin?: boolean;
          scope?: string[];
          domain?: string[];
          claim?: Record<string, string>;
        },
      ) => {
        const clientSecret = options.clientSecretStdin ? await readSecret() : undefined;
        const view = await withIdentityProviders((service) =>
          service.set(tenant, {
            issuer: options.issuer,
            clientId: options.clientId,
            clientSecret,
            scopes: options.scope,
            domains: options.domain,
            claims: options.claim,
          }),
        );
        print(view);
      },
    );

  idp
    .command('show <tenant>')
    .description("show the tenant's provider (never its secret)")
    .action(async (tenant: string) => print(await withIdentityProviders((service) => service.show(tenant))));

  idp
    .command('remove <tenant>')
    .description("disconnect the tenant's provider: its staff can no longer sign in through it")
    .action(async (tenant: string) => {
      await withIdentityProviders((service) => service.remove(tenant));
      process.stdout.write(`removed the identity provider of ${tenant}\n`);
    });
}
