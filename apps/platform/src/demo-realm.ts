import { Inject, Injectable, Module, type OnApplicationBootstrap } from '@nestjs/common';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { seedCatalog } from '@fed/agent';
import { ApiKeyRepository, ApiKeysService } from '@fed/gateway';
import { ClientsModule, ClientsService, UsersModule, UsersService } from '@fed/identity';
import { LOGGER, type Logger } from '@fed/observability';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
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

/**
 * All-in-one only: on the first start (no client and no user yet, and no REALM_IMPORT), creates a
 * demo user, a browser application, a service account and a model-gateway key, so `npm start` is
 * followed by a token and a model call at once. The secrets are printed once and kept in DATA_DIR (mode 0600) for a developer who missed them.
 */
@Injectable()
export class DemoRealm implements OnApplicationBootstrap {
  created?: DemoCredentials;

  constructor(
    private readonly dataSource: DataSource,
    private readonly clients: ClientsService,
    private readonly users: UsersService,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  get credentialsFile(): string {
    return path.join(this.config.dataDir, DEMO_CREDENTIALS_FILE);
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.realmImport) return;
    if ((await this.clients.any()) || (await this.users.any())) return;
    await seedCatalog(this.dataSource);

    const redirectUri = 'http://localhost:3000/callback';
    const { generatedPassword } = await this.users.create({
      email: 'demo@example.com',
      username: 'demo',
      displayName: 'Demo User',
      role: 'admin',
      developer: true,
      status: 'approved',
    });
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
    const keys = new ApiKeysService(new ApiKeyRepository(this.dataSource), {
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

@Module({ imports: [ClientsModule, UsersModule], providers: [DemoRealm] })
export class DemoRealmModule {}

/** The banner's lines about the demo realm. */
export function demoBanner(
  demo: DemoRealm,
  tokenUrl: string,
  gatewayUrl: { openai: string; anthropic: string },
  marketplace?: { tokenUrl: string; chatUrl: string; model: string },
): string[] {
  const created = demo.created;
  if (!created) return existsSync(demo.credentialsFile) ? [`Demo credentials: ${demo.credentialsFile}`, ''] : [];
  if (marketplace) {
    // The Marketplace edition: its own token call, an agent to create, no gateway for callers.
    const { clientId, clientSecret } = created.service;
    return [
      `Demo realm created (shown once; kept in ${created.file}):`,
      `  service account ${clientId} / ${clientSecret}`,
      'Create an agent, get a token, start a turn:',
      `  npm run platformctl -- agents create --id demo-agent --name 'Demo agent' --instructions 'Answer briefly.'`,
      `  curl -X POST ${marketplace.tokenUrl} -H 'content-type: application/json' -d '{"client_id":"${clientId}","client_secret":"${clientSecret}"}'`,
      `  curl -N ${marketplace.chatUrl} -H 'authorization: Bearer <access_token>' -H 'x-agent-id: demo-agent' -H 'content-type: application/json' -d '{"model":"${marketplace.model}","stream":true,"messages":[{"role":"user","content":"Hello"}]}'`,
      '',
    ];
  }
  return [
    `Demo realm created (shown once; kept in ${created.file}):`,
    `  user            ${created.user.login} / ${created.user.password}  (admin, developer)`,
    `  application     ${created.app.clientId} / ${created.app.clientSecret}  (redirect ${created.app.redirectUri})`,
    `  service account ${created.service.clientId} / ${created.service.clientSecret}`,
    'Get a token:',
    `  curl -u ${created.service.clientId}:${created.service.clientSecret} -d grant_type=client_credentials ${tokenUrl}`,
    `Model gateway key: ${created.gatewayKey}  (model "demo"; base URL ${gatewayUrl.openai} for OpenAI clients, ${gatewayUrl.anthropic} for Anthropic clients)`,
    `  curl ${gatewayUrl.openai}/chat/completions -H 'authorization: Bearer ${created.gatewayKey}' -H 'content-type: application/json' -d '{"model":"demo","messages":[{"role":"user","content":"Hello"}]}'`,
    '',
  ];
}
