import { type Command } from 'commander';
import { type ClientsService, type PublicationStatus, clientsServiceFor } from '@fed/identity';
import { withIdentity } from './database';

function withClients<T>(work: (clients: ClientsService) => Promise<T>): Promise<T> {
  return withIdentity((dataSource, config) => work(clientsServiceFor(dataSource, config)));
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function registerClients(program: Command): void {
  const clients = program.command('clients').description('client applications of the OpenID provider');

  clients
    .command('create')
    .description('register a client; its secret is shown once')
    .requiredOption('--client-id <id>', 'client_id: 1-64 letters, digits, ".", "_" or "-"')
    .requiredOption('--name <name>', 'display name')
    .requiredOption('--grant <type>', 'authorization_code, client_credentials or refresh_token (repeatable)', collect)
    .option('--redirect-uri <uri>', 'registered redirect URI, https (http only for localhost) (repeatable)', collect)
    .option('--post-logout-redirect-uri <uri>', 'where the sign-out page may redirect to (repeatable)', collect)
    .option('--scope <scope>', 'scope of the spec, e.g. chat:exec (repeatable)', collect)
    .option('--tenant <name>', 'tenant whose claims its tokens carry (default: the default saas tenant)')
    .option(
      '--operator',
      "the platform operator's own integration: no tenant, no tenant claim in its tokens (reads every tenant's logs, manages platform-wide master data); client_credentials only",
    )
    .option(
      '--public',
      'a browser or native application without a secret (token_endpoint_auth_method none): authorization_code and refresh_token only, PKCE always',
    )
    .option('--unpublished', 'publication status Unpublished: only users with the developer role may use it')
    .option('--no-consent', 'do not show the consent screen')
    .option('--pkce-optional', 'legacy confidential client that cannot send PKCE (default: PKCE S256 required)')
    .option(
      '--allow-management-scopes',
      'let an authorization_code client have management scopes (users:*, logs:read, master:manage, sharedmemory:query); only its admin users hold them',
    )
    .action(
      async (options: {
        clientId: string;
        name: string;
        grant: string[];
        redirectUri?: string[];
        postLogoutRedirectUri?: string[];
        scope?: string[];
        unpublished?: boolean;
        tenant?: string;
        operator?: boolean;
        public?: boolean;
        consent: boolean;
        pkceOptional?: boolean;
        allowManagementScopes?: boolean;
      }) => {
        const publicationStatus: PublicationStatus = options.unpublished ? 'Unpublished' : 'Published';
        const { client, clientSecret } = await withClients((service) =>
          service.create({
            clientId: options.clientId,
            name: options.name,
            grantTypes: options.grant,
            redirectUris: options.redirectUri,
            postLogoutRedirectUris: options.postLogoutRedirectUri,
            scopes: options.scope,
            publicationStatus,
            consentRequired: options.consent,
            requirePkce: !options.pkceOptional,
            allowManagementScopes: options.allowManagementScopes,
            tenantName: options.tenant,
            operator: options.operator,
            publicClient: options.public,
          }),
        );
        process.stdout.write(
          clientSecret === undefined
            ? `client_id: ${client.clientId}\npublic client: no secret (it names itself by client_id, with PKCE)\n`
            : `client_id: ${client.clientId}\nclient_secret: ${clientSecret}\n(the secret is shown once; store it now)\n`,
        );
      },
    );

  clients
    .command('list')
    .description('list registered clients (never their secrets)')
    .action(async () => {
      const rows = await withClients((service) => service.list());
      if (rows.length === 0) process.stdout.write('no clients\n');
      for (const c of rows) {
        process.stdout.write(
          `${c.clientId}  ${c.publicationStatus}  ${c.tokenEndpointAuthMethod === 'none' ? 'public' : 'confidential'}  tenant=${c.tenantId === null ? '-' : (c.tenant?.name ?? c.tenantId)}  consent=${c.consentRequired ? 'on' : 'off'}  pkce=${c.requirePkce ? 'required' : 'optional'}  ${c.enabled ? 'enabled' : 'disabled'}  grants=${c.grantTypes.join(',')}  scopes=${c.scopes.join(' ') || '-'}  name=${JSON.stringify(c.name)}\n`,
        );
      }
    });

  clients
    .command('update <clientId>')
    .description('change a registered client')
    .option(
      '--post-logout-redirect-uri <uri>',
      'where the sign-out page may redirect to (repeatable; replaces the list)',
      collect,
    )
    .option('--no-post-logout-redirect-uris', 'remove every post-logout redirect URI')
    .action(
      async (clientId: string, options: { postLogoutRedirectUri?: string[]; postLogoutRedirectUris: boolean }) => {
        if (!options.postLogoutRedirectUri && options.postLogoutRedirectUris) {
          throw new Error('nothing to change: give --post-logout-redirect-uri or --no-post-logout-redirect-uris');
        }
        const uris = options.postLogoutRedirectUris ? (options.postLogoutRedirectUri ?? []) : [];
        const client = await withClients((service) => service.setPostLogoutRedirectUris(clientId, uris));
        process.stdout.write(
          `${client.clientId}  post-logout redirect URIs: ${client.postLogoutRedirectUris.join(' ') || '-'}\n`,
        );
      },
    );

  clients
    .command('rotate-secret <clientId>')
    .description('replace a client secret; the old one stops working at once; the new one is shown once')
    .action(async (clientId: string) => {
      const { clientSecret } = await withClients((service) => service.rotateSecret(clientId));
      process.stdout.write(
        `client_id: ${clientId}\nclient_secret: ${clientSecret}\n(the secret is shown once; store it now)\n`,
      );
    });
}
