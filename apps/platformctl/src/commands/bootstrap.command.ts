import { catalogEntities, seedCatalog } from '@fed/agent';
import { type AppConfig } from '@fed/config';
import { apiKeysServiceFor, gatewayEntities } from '@fed/gateway';
import {
  type RealmFile,
  clientsServiceFor,
  ensureFirstPartyWebClient,
  identityEntities,
  realmServiceFor,
  usersServiceFor,
} from '@fed/identity';
import { webAppClient } from '@fed/web-host';
import { type Command } from 'commander';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { type DataSource } from 'typeorm';
import { withEntities } from './database';
import { writeOwnerOnly } from './owner-only-file';

// `platformctl bootstrap`: what a fresh distributed stack needs before its first turn, once and idempotently: the
// demo realm and the agent's gateway key, in separate dirs (mode 0600) so agent-runtime never sees the demo admin's
// credentials. Decisions: deploy/README.md, "docker compose from zero".

export const DEMO_CREDENTIALS_FILE = 'demo-credentials.json';
export const AGENT_GATEWAY_KEY_FILE = 'agent-gateway-key';
const AGENT_KEY_NAME = 'agent-runtime';
const REDIRECT_URI = 'http://localhost:3000/callback';
// Bootstraps of one database run one at a time (a session lock, released when the command ends).
const BOOTSTRAP_LOCK = "hashtext('platformctl.bootstrap')";

interface DemoCredentials {
  user: { login: string; password: string };
  app: { clientId: string; clientSecret: string; redirectUri: string };
  service: { clientId: string; clientSecret: string };
}

type DemoRealmOutcome =
  | { state: 'created'; credentials: DemoCredentials }
  | { state: 'kept' }
  /** The realm had users or clients of its own, and no credentials of this command's. */
  | { state: 'not-created' };

const secret = () => randomBytes(32).toString('base64url');

function newCredentials(): DemoCredentials {
  return {
    user: { login: 'demo', password: randomBytes(18).toString('base64url') },
    app: { clientId: 'demo-app', clientSecret: secret(), redirectUri: REDIRECT_URI },
    service: { clientId: 'demo-service', clientSecret: secret() },
  };
}

/** The demo realm of the all-in-one mode (apps/platform demo-realm.ts), as a realm file with these secrets. */
function demoRealm(credentials: DemoCredentials): RealmFile {
  return {
    realm: 'federation',
    clients: [
      {
        clientId: credentials.app.clientId,
        name: 'Demo application',
        secret: credentials.app.clientSecret,
        grantTypes: ['authorization_code', 'refresh_token'],
        scopes: ['openid', 'profile', 'email', 'chat:exec', 'chat:history', 'chat:file', 'mcp:all', 'a2a:all'],
        redirectUris: [credentials.app.redirectUri],
        consentRequired: true,
      },
      {
        clientId: credentials.service.clientId,
        name: 'Demo system integration',
        secret: credentials.service.clientSecret,
        grantTypes: ['client_credentials'],
        scopes: ['users:read', 'users:manage', 'logs:read', 'master:manage', 'sharedmemory:query', 'llm:invoke'],
      },
    ],
    users: [
      {
        email: 'demo@example.com',
        username: credentials.user.login,
        displayName: 'Demo User',
        password: credentials.user.password,
        role: 'admin',
        developer: true,
        status: 'approved',
      },
    ],
  };
}

/** Credentials this command wrote earlier; anything else is refused rather than overwritten. */
function parseCredentials(text: string, file: string): DemoCredentials {
  const refuse = (why: string): never => {
    throw new Error(
      `${file} is not a demo credentials file of platformctl bootstrap (${why}): move it away and run again`,
    );
  };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return refuse('not JSON');
  }
  const field = (object: unknown, key: string, pattern: RegExp): string => {
    const found = typeof object === 'object' && object !== null ? (object as Record<string, unknown>)[key] : undefined;
    return typeof found === 'string' && pattern.test(found) ? found : refuse(`bad or missing ${key}`);
  };
  const record = value as Record<string, unknown>;
  const secretPattern = /^[A-Za-z0-9_-]{32,256}$/;
  return {
    user: {
      login: field(record.user, 'login', /^demo$/),
      password: field(record.user, 'password', /^[A-Za-z0-9_-]{16,256}$/),
    },
    app: {
      clientId: field(record.app, 'clientId', /^demo-app$/),
      clientSecret: field(record.app, 'clientSecret', secretPattern),
      redirectUri: field(record.app, 'redirectUri', /^http:\/\/localhost:3000\/callback$/),
    },
    service: {
      clientId: field(record.service, 'clientId', /^demo-service$/),
      clientSecret: field(record.service, 'clientSecret', secretPattern),
    },
  };
}

async function readIfPresent(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Only into an empty realm; credentials are written before the import, so a cut-off run redoes it with the same. */
async function ensureDemoRealm(
  dataSource: DataSource,
  config: AppConfig<'platformctl'>,
  file: string,
): Promise<DemoRealmOutcome> {
  const kept = await readIfPresent(file);
  const occupied =
    (await clientsServiceFor(dataSource, config).any()) || (await usersServiceFor(dataSource, config).any());
  if (occupied) return kept === undefined ? { state: 'not-created' } : { state: 'kept' };
  const credentials = kept === undefined ? newCredentials() : parseCredentials(kept, file);
  if (kept === undefined) await writeOwnerOnly(file, `${JSON.stringify(credentials, null, 2)}\n`);
  await seedCatalog(dataSource);
  await realmServiceFor(dataSource, config).import(demoRealm(credentials));
  return { state: 'created', credentials };
}

/** The key kept in `file` while it is live; otherwise a new one (kept there). */
async function ensureAgentKey(
  dataSource: DataSource,
  config: AppConfig<'platformctl'>,
  file: string,
): Promise<'kept' | 'created' | 'replaced'> {
  const keys = apiKeysServiceFor(dataSource, { keyPrefix: config.gateway.keyPrefix });
  const kept = (await readIfPresent(file))?.trim();
  if (kept && kept.startsWith(config.gateway.keyPrefix) && kept.length <= 200 && (await keys.isLive(kept)))
    return 'kept';
  const { apiKey } = await keys.create({
    name: AGENT_KEY_NAME,
  });
  await writeOwnerOnly(file, `${apiKey}\n`);
  return kept === undefined ? 'created' : 'replaced';
}

async function bootstrap(dir: string, agentKeyDir: string): Promise<void> {
  for (const directory of new Set([dir, agentKeyDir])) await mkdir(directory, { recursive: true, mode: 0o700 });
  const credentialsFile = path.join(dir, DEMO_CREDENTIALS_FILE);
  const keyFile = path.join(agentKeyDir, AGENT_GATEWAY_KEY_FILE);
  const entities = [...identityEntities, ...gatewayEntities, ...catalogEntities];
  const { realm, key, tokenUrl, webApp } = await withEntities(entities, async (dataSource, config) => {
    const lock = dataSource.createQueryRunner();
    await lock.connect();
    try {
      await lock.query(`SELECT pg_advisory_lock(${BOOTSTRAP_LOCK})`);
      const realm = await ensureDemoRealm(dataSource, config, credentialsFile);
      // The demo realm's web app (the Marketplace edition's admin panel there), as all-in-one: its redirects follow
      // PUBLIC_URL at every run.
      const webApp = realm.state !== 'not-created' ? webAppClient(config.http.publicUrl, config.edition) : undefined;
      if (webApp) await ensureFirstPartyWebClient(clientsServiceFor(dataSource, config), webApp);
      return {
        realm,
        key: await ensureAgentKey(dataSource, config, keyFile),
        tokenUrl: `${config.http.publicUrl}/federation/auth/v1/token`,
        webApp,
      };
    } finally {
      await lock.query(`SELECT pg_advisory_unlock(${BOOTSTRAP_LOCK})`).catch(() => undefined);
      await lock.release();
    }
  });
  const lines: string[] = [];
  if (realm.state === 'created') {
    const { user, app, service } = realm.credentials;
    lines.push(
      `demo realm created (for a local stack only; kept in ${credentialsFile}):`,
      `  user            ${user.login} / ${user.password}  (admin, developer)`,
      `  application     ${app.clientId} / ${app.clientSecret}  (redirect ${app.redirectUri})`,
      `  service account ${service.clientId} / ${service.clientSecret}`,
      'get a token:',
      `  curl -u ${service.clientId}:${service.clientSecret} -d grant_type=client_credentials ${tokenUrl}`,
    );
  } else if (realm.state === 'kept') {
    lines.push(`demo realm: in place, nothing changed; credentials in ${credentialsFile}`);
  } else {
    lines.push('demo realm: not created, the realm already has users or clients of its own');
  }
  if (webApp) lines.push(`web app: ${webApp.baseUrl}/ (public client ${webApp.clientId})`);
  lines.push(
    {
      kept: `agent gateway key: live, nothing changed (${keyFile})`,
      created: `agent gateway key: created, kept in ${keyFile} for agent-runtime`,
      replaced: `agent gateway key: the kept one was no longer live; a new one is in ${keyFile} (restart agent-runtime)`,
    }[key],
  );
  process.stdout.write(`${lines.join('\n')}\n`);
}

export function registerBootstrap(program: Command): void {
  program
    .command('bootstrap')
    .description(
      "prepare a fresh distributed stack, once: the demo realm (into a realm without users and clients) and the agent's model-gateway key; running it again changes nothing",
    )
    .requiredOption('--dir <dir>', 'where the demo credentials are kept (a file of mode 0600)')
    .option(
      '--agent-key-dir <dir>',
      "where the agent's gateway key is kept (a file of mode 0600), for agent-runtime to read; default: --dir",
    )
    .action((options: { dir: string; agentKeyDir?: string }) =>
      bootstrap(path.resolve(options.dir), path.resolve(options.agentKeyDir ?? options.dir)),
    );
}
