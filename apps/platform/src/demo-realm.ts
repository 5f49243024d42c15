import { Inject, Injectable, Module, type OnApplicationBootstrap } from '@nestjs/common';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { libraryAdminServiceFor, seedCatalog } from '@fed/agent';
import { apiKeysServiceFor } from '@fed/gateway';
import { ClientsModule, ClientsService, UsersModule, UsersService, ensureFirstPartyWebClient } from '@fed/identity';
import { LOGGER, type Logger } from '@fed/observability';
import { BLOB_STORE, type BlobStore } from '@fed/storage';
import { webAppClient } from '@fed/web-host';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { DataSource } from 'typeorm';

export interface DemoCredentials {
  file: string;
  user: { login: string; password: string };
  app: { clientId: string; clientSecret: string; redirectUri: string };
  service: { clientId: string; clientSecret: string };
  /** A virtual key of the model gateway (the demo model works offline). */
  gatewayKey: string;
}

export const DEMO_CREDENTIALS_FILE = 'demo-credentials.json';

/** All-in-one first start (no client, user or REALM_IMPORT): demo accounts and gateway key, kept in DATA_DIR. */
@Injectable()
export class DemoRealm implements OnApplicationBootstrap {
  created?: DemoCredentials;

  constructor(
    private readonly dataSource: DataSource,
    private readonly clients: ClientsService,
    private readonly users: UsersService,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
  ) {}

  get credentialsFile(): string {
    return path.join(this.config.dataDir, DEMO_CREDENTIALS_FILE);
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.realmImport) return;
    if (!(await this.clients.any()) && !(await this.users.any())) await this.create();
    // The web app: the SaaS edition's chat and console, the Marketplace edition's admin panel (docs/marketplace.md).
    if (existsSync(this.credentialsFile)) await this.ensureWebClient();
  }

  /**
   * The web app's public client, whose redirects follow PUBLIC_URL at every start (a demo realm made before the
   * web app existed gets it too). First-party: no consent page.
   */
  private async ensureWebClient(): Promise<void> {
    await ensureFirstPartyWebClient(this.clients, webAppClient(this.config.http.publicUrl, this.config.edition));
  }

  /** A shared file and a prompt template, so the web app's library picker has something to pick. */
  private async seedLibrary(): Promise<void> {
    const library = libraryAdminServiceFor(this.dataSource, this.blobs);
    await library.addFile(
      'guides/house-style.md',
      { title: 'House style', description: 'How answers and documents are written here.' },
      Readable.from([Buffer.from(DEMO_STYLE_GUIDE)]),
    );
    await library.addTemplate('templates/summarize.md', {
      title: 'Summarize a document',
      text: DEMO_TEMPLATE,
      description: 'The key points, decisions and actions of an attached document.',
    });
  }

  private async create(): Promise<void> {
    await seedCatalog(this.dataSource);
    // The library is the SaaS edition's (document 2's edition table).
    if (this.config.edition !== 'marketplace') await this.seedLibrary();

    const redirectUri = 'http://localhost:3000/callback';
    const { user, generatedPassword } = await this.users.create({
      email: 'demo@example.com',
      username: 'demo',
      displayName: 'Demo User',
      role: 'admin',
      developer: true,
      status: 'approved',
    });
    // The demo's administrator operates the platform too: the web app's console manages clients with it.
    await this.users.setPlatformOperator(user.id, true);
    const app = await this.clients.create({
      clientId: 'demo-app',
      name: 'Demo application',
      grantTypes: ['authorization_code', 'refresh_token'],
      scopes: ['openid', 'profile', 'email', 'chat:exec', 'chat:history', 'chat:file', 'mcp:all', 'a2a:all'],
      redirectUris: [redirectUri],
      consentRequired: true,
    });
    const service = await this.clients.create({
      clientId: 'demo-service',
      name: 'Demo system integration',
      grantTypes: ['client_credentials'],
      scopes: ['users:read', 'users:manage', 'logs:read', 'master:manage', 'sharedmemory:query', 'llm:invoke'],
    });
    const keys = apiKeysServiceFor(this.dataSource, {
      keyPrefix: this.config.gateway.keyPrefix,
    });
    // The demo's key belongs to the demo tenant: its calls are in that tenant's gateway log, which demo-service reads.
    const { apiKey } = await keys.create({ name: 'demo', tenantId: service.client.tenantId ?? undefined });
    this.created = {
      file: this.credentialsFile,
      user: { login: 'demo', password: generatedPassword as string },
      app: { clientId: 'demo-app', clientSecret: app.clientSecret, redirectUri },
      service: { clientId: 'demo-service', clientSecret: service.clientSecret },
      gatewayKey: apiKey,
    };
    await mkdir(this.config.dataDir, { recursive: true });
    await writeFile(this.credentialsFile, `${JSON.stringify(this.created, null, 2)}\n`, { mode: 0o600 });
    this.logger.info({ file: this.credentialsFile }, 'demo realm created');
  }
}

const DEMO_STYLE_GUIDE = `# House style

- Lead with the answer, then the reasons.
- Dates as 2026-12-03, amounts with their currency.
- Short sentences; one idea per paragraph.
`;

const DEMO_TEMPLATE = `Summarize the attached document for a busy reader:
1. the three points that matter most,
2. what is decided and what is still open,
3. who has to act, and by when.`;

@Module({ imports: [ClientsModule, UsersModule], providers: [DemoRealm] })
export class DemoRealmModule {}

/** Where a secret goes in the banner's commands on the starts after the one that showed it. */
const KEPT_SECRETS: Omit<DemoCredentials, 'file'> = {
  user: { login: 'demo', password: '<password>' },
  app: { clientId: 'demo-app', clientSecret: '<client_secret>', redirectUri: 'http://localhost:3000/callback' },
  service: { clientId: 'demo-service', clientSecret: '<client_secret>' },
  gatewayKey: '<fed_ key>',
};

export interface DemoBannerUrls {
  tokenUrl: string;
  gateway: { openai: string; anthropic: string };
  /** The Marketplace edition's token call and chat (it has neither the gateway nor scopes). */
  marketplace?: { tokenUrl: string; chatUrl: string; model: string };
}

/** The banner's demo-realm lines; secrets only on the start that created them, later starts name their file. */
export function demoBanner(demo: DemoRealm, urls: DemoBannerUrls, tokenTtlSeconds: number): string[] {
  const created = demo.created;
  if (!created && !existsSync(demo.credentialsFile)) return [];
  const { user, app, service, gatewayKey } = created ?? KEPT_SECRETS;
  const heading = created
    ? `Demo realm created (secrets shown once; kept in ${created.file}):`
    : `Demo realm (its secrets were shown when it was created; ${demo.credentialsFile} keeps them):`;
  const token = `(an access token lives ${tokenTtlSeconds} s: ACCESS_TOKEN_TTL_SECONDS)`;
  const { marketplace } = urls;
  if (marketplace) {
    // The Marketplace edition: its own token call, an agent to create, no gateway for callers.
    return [
      heading,
      `  operator        ${user.login} / ${user.password}  (signs in to the admin panel)`,
      `  service account ${service.clientId} / ${service.clientSecret}`,
      `Create an agent (in the admin panel, or as below), get a token ${token}, start a turn:`,
      `  npm run platformctl -- agents create --id demo-agent --name 'Demo agent' --instructions 'Answer briefly.'`,
      `  curl -X POST ${marketplace.tokenUrl} -H 'content-type: application/json' -d '{"client_id":"${service.clientId}","client_secret":"${service.clientSecret}"}'`,
      `  curl -N ${marketplace.chatUrl} -H 'authorization: Bearer <access_token>' -H 'x-agent-id: demo-agent' -H 'content-type: application/json' -d '{"model":"${marketplace.model}","stream":true,"messages":[{"role":"user","content":"Hello"}]}'`,
      '',
    ];
  }
  return [
    heading,
    `  user            ${user.login} / ${user.password}  (admin, developer, platform operator)`,
    `  application     ${app.clientId} / ${app.clientSecret}  (redirect ${app.redirectUri})`,
    `  service account ${service.clientId} / ${service.clientSecret}`,
    `Get a token ${token}:`,
    `  curl -u ${service.clientId}:${service.clientSecret} -d grant_type=client_credentials ${urls.tokenUrl}`,
    `Model gateway key: ${gatewayKey}  (model "demo"; base URL ${urls.gateway.openai} for OpenAI clients, ${urls.gateway.anthropic} for Anthropic clients)`,
    `  curl ${urls.gateway.openai}/chat/completions -H 'authorization: Bearer ${gatewayKey}' -H 'content-type: application/json' -d '{"model":"demo","messages":[{"role":"user","content":"Hello"}]}'`,
    '',
  ];
}
