import { type AppConfig } from '@fed/config';
import { type Command, InvalidArgumentError } from 'commander';
import {
  type ClientTokenRevocations,
  type ClientView,
  type ClientsService,
  type PublicationStatus,
  clientsServiceFor,
  signalClientTokenRevocations,
} from '@fed/identity';
import { withIdentity } from './database';
import { tellRunningServices } from './signals';

/** Running services learn at once that a client's tokens ended (else its access tokens expire). */
class AnnouncedClientRevocations implements ClientTokenRevocations {
  told?: boolean;

  constructor(private readonly config: AppConfig<'platformctl'>) {}

  async clientTokensEnded(...ended: Parameters<ClientTokenRevocations['clientTokensEnded']>): Promise<void> {
    this.told = await tellRunningServices(this.config, (signals) =>
      signalClientTokenRevocations(signals, this.config).clientTokensEnded(...ended),
    );
  }
}

function withClients<T>(
  work: (clients: ClientsService, revocations: AnnouncedClientRevocations) => Promise<T>,
): Promise<T> {
  return withIdentity((dataSource, config) => {
    const revocations = new AnnouncedClientRevocations(config);
    return work(clientsServiceFor(dataSource, config, revocations), revocations);
  });
}

const UNTOLD_REVOCATION =
  '; no REDIS_URL: running services accept the access tokens already issued until they expire, at most ACCESS_TOKEN_TTL_SECONDS';

function endedNote(told: boolean | undefined): string {
  if (told === undefined) return '';
  return ` (its sessions and tokens ended${told ? '' : UNTOLD_REVOCATION})`;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

function parseOnOff(value: string): boolean {
  if (value !== 'on' && value !== 'off') throw new InvalidArgumentError('expected on or off');
  return value === 'on';
}

function clientLine(c: ClientView): string {
  return `${c.clientId}  ${c.publicationStatus}  ${c.tokenEndpointAuthMethod === 'none' ? 'public' : 'confidential'}  tenant=${c.tenantId === null ? '-' : (c.tenant?.name ?? c.tenantId)}  consent=${c.consentRequired ? 'on' : 'off'}  pkce=${c.requirePkce ? 'required' : 'optional'}  ${c.enabled ? 'enabled' : 'disabled'}  grants=${c.grantTypes.join(',')}  scopes=${c.scopes.join(' ') || '-'}  name=${JSON.stringify(c.name)}`;
}

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
      'let an authorization_code client have management scopes (users:*, logs:read, master:manage, sharedmemory:query, platform:manage); only its admin users hold them (platform:manage: admins who are platform operators)',
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
      for (const c of rows) process.stdout.write(`${clientLine(c)}\n`);
    });

  clients
    .command('update <clientId>')
    .description('change a registered client, by the rules of registration; the lists given replace the stored ones')
    .option('--name <name>', 'display name')
    .option('--redirect-uri <uri>', 'registered redirect URI (repeatable; replaces the list)', collect)
    .option(
      '--post-logout-redirect-uri <uri>',
      'where the sign-out page may redirect to (repeatable; replaces the list)',
      collect,
    )
    .option('--no-post-logout-redirect-uris', 'remove every post-logout redirect URI')
    .option('--scope <scope>', 'scope of the spec (repeatable; replaces the list)', collect)
    .option('--consent <on|off>', 'show the consent screen or not', parseOnOff)
    .option('--allow-management-scopes', 'needed when --scope gives an authorization_code client a management scope')
    .option('--force', "also the redirect URIs, scopes or consent of the platform's own client (web)")
    .action(
      async (
        clientId: string,
        options: {
          force?: boolean;
          name?: string;
          redirectUri?: string[];
          postLogoutRedirectUri?: string[];
          postLogoutRedirectUris: boolean;
          scope?: string[];
          consent?: boolean;
          allowManagementScopes?: boolean;
        },
      ) => {
        const postLogoutRedirectUris = options.postLogoutRedirectUris ? options.postLogoutRedirectUri : [];
        const client = await withClients((service) =>
          service.update(
            clientId,
            {
              name: options.name,
              redirectUris: options.redirectUri,
              postLogoutRedirectUris,
              scopes: options.scope,
              consentRequired: options.consent,
              allowManagementScopes: options.allowManagementScopes,
            },
            { force: options.force },
          ),
        );
        process.stdout.write(
          `${clientLine(client)}\n${client.clientId}  redirect URIs: ${client.redirectUris.join(' ') || '-'}\n` +
            `${client.clientId}  post-logout redirect URIs: ${client.postLogoutRedirectUris.join(' ') || '-'}\n`,
        );
      },
    );

  clients
    .command('disable <clientId>')
    .description(
      'stop a client: it gets no token, and every session and token of it ends (enable lets it sign in again)',
    )
    .option('--force', "also the platform's own client (web), which the HTTP API refuses")
    .action(async (clientId: string, options: { force?: boolean }) => {
      const { client, told } = await withClients(async (service, revocations) => ({
        client: await service.setEnabled(clientId, false, { force: options.force }),
        told: revocations.told,
      }));
      process.stdout.write(`${client.clientId}: disabled${endedNote(told)}\n`);
    });

  clients
    .command('enable <clientId>')
    .description('let a disabled client get tokens again (its users sign in again)')
    .action(async (clientId: string) => {
      const client = await withClients((service) => service.setEnabled(clientId, true));
      process.stdout.write(`${client.clientId}: enabled\n`);
    });

  clients
    .command('delete <clientId>')
    .description('remove a client with its refresh tokens and consents; its live access tokens are revoked')
    .option('--force', "also the platform's own client (web), which the HTTP API refuses")
    .action(async (clientId: string, options: { force?: boolean }) => {
      const told = await withClients(async (service, revocations) => {
        await service.delete(clientId, { force: options.force });
        return revocations.told;
      });
      process.stdout.write(`${clientId}: deleted${endedNote(told)}\n`);
    });

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
