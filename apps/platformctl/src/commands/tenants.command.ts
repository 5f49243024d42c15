import { type Command, InvalidArgumentError, Option } from 'commander';
import {
  IDP_CALLBACK_PATH,
  type IdpCheckReport,
  type MappedField,
  TenantIdpCheck,
  type TenantIdpView,
  type TenantIdpsService,
  type TenantRow,
  type TenantType,
  type TenantsService,
  idpSecretsKeyFor,
  mappedFields,
  tenantIdpsServiceFor,
  tenantTypes,
  tenantsServiceFor,
} from '@fed/identity';
import { withIdentity } from './database';

// The services of /api/v1/admin/tenants and its identity-provider routes.
function withIdentityProviders<T>(work: (service: TenantIdpsService) => Promise<T>): Promise<T> {
  return withIdentity(async (dataSource, config) =>
    work(tenantIdpsServiceFor(dataSource, await idpSecretsKeyFor(config))),
  );
}

function withTenants<T>(work: (service: TenantsService) => Promise<T>): Promise<T> {
  return withIdentity((dataSource) => work(tenantsServiceFor(dataSource)));
}

// platformctl does not know where the platform is served: the operator fills in {AUTH_URL}.
const AUTH_URL = '{AUTH_URL}';

function printTenant(tenant: TenantRow): void {
  process.stdout.write(
    [
      `tenant: ${tenant.name}`,
      `id: ${tenant.id}`,
      `type: ${tenant.type}`,
      `endpoint: ${tenant.endpoint}`,
      `enabled: ${tenant.enabled}`,
      `users: ${tenant.users}`,
      `clients: ${tenant.clients}`,
      `identity provider: ${tenant.identityProvider ? 'yes' : 'no'}`,
      `created: ${tenant.createdAt.toISOString()}`,
    ].join('\n') + '\n',
  );
}

function printCheck(report: IdpCheckReport): void {
  const lines = [
    `tenant: ${report.tenant}`,
    `issuer: ${report.issuer}`,
    `discovery: ${report.discoveryUrl}`,
    `issuer matches: ${report.issuerMatches === null ? '-' : report.issuerMatches ? 'yes' : 'no'}`,
  ];
  if (report.discovered) {
    const found = report.discovered;
    lines.push(
      `authorization_endpoint: ${found.authorizationEndpoint ?? '-'}`,
      `token_endpoint: ${found.tokenEndpoint ?? '-'}`,
      `userinfo_endpoint: ${found.userinfoEndpoint ?? '-'}`,
      `jwks_uri: ${found.jwksUri ?? '-'}`,
      `ID token algorithms: ${found.idTokenSigningAlgorithms.join(' ') || '-'} (accepted: ${found.acceptedAlgorithms.join(' ') || 'none'})`,
    );
  }
  if (report.keys) {
    const usable = report.keys.filter((key) => key.usable).length;
    lines.push(`keys: ${report.keys.length} (${usable} usable)`);
  }
  for (const problem of report.problems) lines.push(`problem (${problem.code}): ${problem.message}`);
  if (report.signIn) {
    const { idp_hint, prompt } = report.signIn.parameters;
    lines.push(`sign-in: ${report.signIn.authorizationEndpoint} with idp_hint=${idp_hint} prompt=${prompt}`);
  }
  lines.push(report.ok ? 'ok' : `${report.problems.length} problem(s)`);
  process.stdout.write(lines.join('\n') + '\n');
}

function parseType(value: string): TenantType {
  if (!(tenantTypes as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`expected ${tenantTypes.join(' or ')}`);
  }
  return value as TenantType;
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

  tenants
    .command('list')
    .description('list tenants by name, with their users, clients and whether they have their own provider')
    .option('--search <text>', 'only tenants whose name or endpoint contains this (any letter case)')
    .action(async (options: { search?: string }) => {
      const { tenants: rows, total } = await withTenants((service) =>
        service.list(options.search, { limit: 100_000, page: 1, offset: 0 }),
      );
      if (total === 0) process.stdout.write('no tenants\n');
      for (const row of rows) {
        process.stdout.write(
          `${row.name}  ${row.type.padEnd(10)}  ${row.enabled ? 'enabled ' : 'disabled'}  users ${row.users}  clients ${row.clients}  idp ${row.identityProvider ? 'yes' : 'no'}  ${row.endpoint}\n`,
        );
      }
    });

  tenants
    .command('show <tenant>')
    .description('show a tenant')
    .action(async (name: string) => printTenant(await withTenants((service) => service.get({ name }))));

  tenants
    .command('create <tenant>')
    .description('create a tenant (its name is fixed once created)')
    .addOption(new Option('--type <type>', 'enterprise or saas').argParser(parseType).makeOptionMandatory())
    .requiredOption('--endpoint <url>', "the tenant's base URL (tenant.endpoint of its tokens)")
    .option('--disabled', 'create it disabled (its users and clients get no tokens)')
    .action(async (name: string, options: { type: TenantType; endpoint: string; disabled?: boolean }) => {
      const tenant = await withTenants((service) =>
        service.create({ name, type: options.type, endpoint: options.endpoint, enabled: !options.disabled }),
      );
      printTenant(tenant);
    });

  tenants
    .command('update <tenant>')
    .description(
      "change a tenant's endpoint, or disable or enable it (a disabled tenant's users and clients get no tokens)",
    )
    .option('--endpoint <url>', "the tenant's base URL")
    .addOption(new Option('--disable', 'disable it').conflicts('enable'))
    .option('--enable', 'enable it')
    .action(async (name: string, options: { endpoint?: string; disable?: boolean; enable?: boolean }) => {
      const enabled = options.disable ? false : options.enable ? true : undefined;
      printTenant(await withTenants((service) => service.update({ name }, { endpoint: options.endpoint, enabled })));
    });

  tenants
    .command('delete <tenant>')
    .description('delete a tenant without users or clients (its provider and master data go with it)')
    .action(async (name: string) => {
      const deleted = await withTenants((service) => service.delete({ name }));
      process.stdout.write(`deleted tenant ${deleted.name}\n`);
    });
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
          service.set(
            { name: tenant },
            {
              issuer: options.issuer,
              clientId: options.clientId,
              clientSecret,
              scopes: options.scope,
              domains: options.domain,
              claims: options.claim,
            },
          ),
        );
        print(view);
      },
    );

  idp
    .command('show <tenant>')
    .description("show the tenant's provider (never its secret)")
    .action(async (tenant: string) => print(await withIdentityProviders((service) => service.show({ name: tenant }))));

  idp
    .command('remove <tenant>')
    .description("disconnect the tenant's provider: its staff can no longer sign in through it")
    .action(async (tenant: string) => {
      await withIdentityProviders((service) => service.remove({ name: tenant }));
      process.stdout.write(`removed the identity provider of ${tenant}\n`);
    });

  idp
    .command('test <tenant>')
    .description("fetch the provider's discovery document and JWKS as a sign-in would, and say what was found")
    .action(async (tenant: string) => {
      const report = await withIdentityProviders((service) =>
        new TenantIdpCheck(service, AUTH_URL).check({ name: tenant }),
      );
      printCheck(report);
      if (!report.ok) process.exitCode = 1;
    });
}
