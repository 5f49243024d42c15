import { JwksServer, TestTokenIssuer } from '@fed/auth/testing';
import { testServiceUrls } from '@fed/config';
import { apiKeysServiceFor, gatewayEntities } from '@fed/gateway';
import { createDataSource, dataSourceOptions, runMigrations } from '@fed/persistence';
import { createTestDatabase } from '@fed/persistence/testing';
import { ScriptedUpstream, deleteRedisKeys, freePort } from '@fed/testing';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { stringify } from 'yaml';
import { OwnPostgres } from './own-postgres';
import { OwnRedis } from './own-redis';
import { AnswerFeeder, type AnswerShape, type ProviderFailures } from './scripted-answers';
import { type AppName, ServiceProcess } from './service-process';

export const CHAT_MODEL = 'federation-agent';
/** The agent's model at the gateway: the scripted provider's slow answers. */
const AGENT_MODEL = 'agent-model';
/** A model for direct gateway traffic: the provider's quick echo (its path matches no scripted step). */
export const ECHO_MODEL = 'echo-model';

export interface StackOptions {
  distRoot: string;
  chatInstances: number;
  runtimes: number;
  /** admin-service beside the chat services (approval e-mails). */
  admin?: { smtpUrl: string; env?: Record<string, string> };
  /** `own`: a throwaway server of the scenario's, which it may restart; `shared`: the machine's. */
  redis: 'shared' | 'own';
  postgres: 'shared' | 'own';
  answers: AnswerShape;
  providerFailures?: ProviderFailures;
  /** Settings given to every service (AGENT_STALL_SECONDS must be the same everywhere). */
  env?: Record<string, string>;
  /** Record the provider's requests (a soak turns it off so memory stays flat). */
  recordRequests?: boolean;
}

/**
 * The distributed mode on this machine: chat-service (one or more), agent-runtime (one or more),
 * llm-gateway and, when asked, admin-service, each a process of its own from dist, sharing one
 * PostgreSQL database and one Redis key prefix; users' tokens come from a test issuer whose JWKS the
 * services trust, the provider is the scripted upstream of this process.
 */
export class FaultStack {
  readonly chats: ServiceProcess[] = [];
  readonly runtimes: ServiceProcess[] = [];
  /** Started when the stack has runtimes (they call the model through it). */
  gateway: ServiceProcess | undefined;
  admin: ServiceProcess | undefined;
  /** Every process ever started (replaced ones too), so that close() stops them all. */
  private readonly started: ServiceProcess[] = [];
  private readonly cleanups: (() => Promise<unknown>)[] = [];
  private serial = 0;
  private commonEnv: Record<string, string> = {};
  private runtimeEnv: Record<string, string> = {};

  private constructor(
    readonly options: StackOptions,
    readonly databaseUrl: string,
    readonly redisUrl: string,
    readonly keyPrefix: string,
    readonly issuer: TestTokenIssuer,
    readonly upstream: ScriptedUpstream,
    readonly feeder: AnswerFeeder,
    readonly ownRedis: OwnRedis | undefined,
    readonly ownPostgres: OwnPostgres | undefined,
  ) {}

  static async start(options: StackOptions): Promise<FaultStack> {
    const cleanups: (() => Promise<unknown>)[] = [];
    let stack: FaultStack | undefined;
    try {
      const ownPostgres = options.postgres === 'own' ? await OwnPostgres.start() : undefined;
      if (ownPostgres) cleanups.push(() => ownPostgres.close());
      let databaseUrl: string;
      if (ownPostgres) {
        await sql(ownPostgres.adminUrl, 'CREATE DATABASE fed');
        databaseUrl = ownPostgres.urlOf('fed');
        await runMigrations(databaseUrl);
      } else {
        const database = await createTestDatabase();
        await database.dataSource.destroy();
        databaseUrl = database.url;
        cleanups.push(() => database.drop());
      }
      const ownRedis = options.redis === 'own' ? await OwnRedis.start() : undefined;
      if (ownRedis) cleanups.push(() => ownRedis.close());
      const redisUrl = ownRedis?.url ?? testServiceUrls().redisUrl;
      const keyPrefix = `faults:${randomUUID().slice(0, 8)}:`;
      if (!ownRedis) cleanups.push(() => deleteRedisKeys(redisUrl, keyPrefix));

      const issuer = await TestTokenIssuer.create();
      cleanups.push(() => issuer.close());
      const jwks = await JwksServer.start(() => issuer.jwks());
      cleanups.push(() => jwks.close());
      const upstream = await ScriptedUpstream.start({ recordRequests: options.recordRequests ?? true });
      cleanups.push(() => upstream.close());
      const feeder = new AnswerFeeder(upstream, options.answers, options.providerFailures);
      cleanups.push(async () => feeder.stop());

      stack = new FaultStack(
        options,
        databaseUrl,
        redisUrl,
        keyPrefix,
        issuer,
        upstream,
        feeder,
        ownRedis,
        ownPostgres,
      );
      stack.cleanups.push(...cleanups.splice(0));
      await stack.boot(jwks.url);
      return stack;
    } catch (error) {
      await stack?.close();
      for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
      throw error;
    }
  }

  /** An access token of user `userId` with the chat scopes. */
  userToken(userId: string): Promise<string> {
    return this.issuer.mint({ sub: userId, scope: 'openid profile chat:exec chat:history' });
  }

  /** A token with `scope` and more claims (an admin's, with the tenant the admin manages). */
  token(scope: string, claims: Record<string, unknown> = {}): Promise<string> {
    return this.issuer.mint({ sub: randomUUID(), scope, ...claims });
  }

  /** The chat services still running. */
  liveChats(): ServiceProcess[] {
    return this.chats.filter((chat) => chat.running);
  }

  async startChat(): Promise<ServiceProcess> {
    const chat = await this.startService('chat-service', this.commonEnv);
    this.chats.push(chat);
    return chat;
  }

  async startRuntime(): Promise<ServiceProcess> {
    const runtime = await this.startService('agent-runtime', this.runtimeEnv);
    this.runtimes.push(runtime);
    return runtime;
  }

  /** Every service process of the stack that is running now. */
  liveServices(): ServiceProcess[] {
    return this.started.filter((service) => service.running);
  }

  /** Runs one statement on the stack's database. */
  query<T extends Record<string, unknown>>(text: string, values: unknown[] = []): Promise<T[]> {
    return sql<T>(this.databaseUrl, text, values);
  }

  async close(): Promise<void> {
    // FAULTS_DEBUG=1: what each service printed last (warnings and errors), to see why a scenario failed.
    if (process.env.FAULTS_DEBUG) {
      for (const service of this.started) process.stderr.write(`--- ${service.name}\n${service.lastOutput()}\n`);
    }
    await Promise.all(this.started.map((service) => service.stop()));
    for (const cleanup of this.cleanups.reverse()) await cleanup().catch(() => undefined);
  }

  private async boot(jwksUrl: string): Promise<void> {
    const blobDir = mkdtempSync(path.join(tmpdir(), 'fed-faults-blobs-'));
    const removeBlobs = () => rmSync(blobDir, { recursive: true, force: true });
    process.once('exit', removeBlobs);
    this.cleanups.push(async () => {
      process.off('exit', removeBlobs);
      removeBlobs();
    });
    const routingFile = path.join(blobDir, 'routing.yaml');
    writeFileSync(
      routingFile,
      stringify({
        // No `connections` cap (the gateway's default): every stream of a soak gets its own connection, and
        // the echo's quick calls never queue behind them.
        providers: [
          { name: 'scripted', type: 'openai', baseUrl: `${this.upstream.url}/v1`, apiKey: 'sk-upstream' },
          { name: 'echo', type: 'openai', baseUrl: `${this.upstream.url}/echo/v1`, apiKey: 'sk-upstream' },
        ],
        models: [
          { name: AGENT_MODEL, deployments: [{ provider: 'scripted', model: 'upstream-model' }] },
          { name: ECHO_MODEL, deployments: [{ provider: 'echo', model: 'echo' }] },
        ],
      }),
    );
    this.commonEnv = {
      DATABASE_URL: this.databaseUrl,
      REDIS_URL: this.redisUrl,
      REDIS_KEY_PREFIX: this.keyPrefix,
      AUTH_URL: this.issuer.issuer.replace(/\/realms\/federation$/, ''),
      AUTH_JWKS_URL: jwksUrl,
      BLOB_DIR: blobDir,
      ...this.options.env,
    };
    if (this.options.runtimes > 0) {
      const [gateway, agentKey] = await Promise.all([
        this.startService('llm-gateway', { ...this.commonEnv, LLM_GATEWAY_ROUTING_FILE: routingFile }),
        this.createGatewayKey('agent'),
      ]);
      this.gateway = gateway;
      this.runtimeEnv = {
        ...this.commonEnv,
        AGENT_GATEWAY_URL: `${gateway.url}/llm/v1`,
        AGENT_GATEWAY_API_KEY: agentKey,
        AGENT_MODEL,
        AGENT_MODEL_HIGH_PERFORMANCE: AGENT_MODEL,
        ...this.options.env,
      };
    }
    const starts: Promise<unknown>[] = [];
    for (let i = 0; i < this.options.chatInstances; i++) starts.push(this.startChat());
    for (let i = 0; i < this.options.runtimes; i++) starts.push(this.startRuntime());
    if (this.options.admin) {
      const { smtpUrl, env } = this.options.admin;
      starts.push(
        this.startService('admin-service', {
          ...this.commonEnv,
          SMTP_URL: smtpUrl,
          SMTP_FROM: 'Federation <no-reply@example.com>',
          NOTIFY_LOCALE: 'en',
          ...env,
        }).then((admin) => (this.admin = admin)),
      );
    }
    await Promise.all(starts);
  }

  /** A virtual key of the gateway, made as `platformctl apikeys create` makes it. */
  async createGatewayKey(name: string): Promise<string> {
    const dataSource = await createDataSource(
      dataSourceOptions({
        url: this.databaseUrl,
        poolSize: 1,
        applicationName: 'fed-faults',
        entities: gatewayEntities,
      }),
    );
    try {
      return (await apiKeysServiceFor(dataSource, { keyPrefix: 'fed_' }).create({ name })).apiKey;
    } finally {
      await dataSource.destroy();
    }
  }

  private async startService(app: AppName, env: Record<string, string>): Promise<ServiceProcess> {
    const service = await ServiceProcess.start({
      distRoot: this.options.distRoot,
      app,
      name: `${app}#${++this.serial}`,
      port: await freePort(),
      env,
    });
    this.started.push(service);
    return service;
  }
}

/** One statement on a connection of its own. */
export async function sql<T extends Record<string, unknown> = Record<string, unknown>>(
  url: string,
  text: string,
  values: unknown[] = [],
): Promise<T[]> {
  const client = new Client({ connectionString: url, application_name: 'fed-faults' });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}
