import { customCleanEnv } from 'envalid';
import path from 'node:path';
import { type AppName } from './app-names';
import { type VariableDefinition, type VariableName, validatorFor, variables } from './variables';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
export type Edition = 'saas' | 'marketplace';

/** The typed configuration of one app, built once at boot. */
export interface ServiceConfig {
  app: AppName;
  edition: Edition;
  http: {
    host: string;
    port: number;
    /** {base_url} */
    publicUrl: string;
    shutdownTimeoutMs: number;
    /** Reverse proxies in front that append to `X-Forwarded-For` (0: the TCP peer is the caller). */
    trustProxyHops: number;
  };
  auth: {
    /** {auth_url} */
    authUrl: string;
    /** {auth_url}/realms/federation */
    issuer: string;
    jwksUrl: string;
    clockSkewSeconds: number;
  };
  database: {
    /** Absent only where the embedded PostgreSQL may be used (platform, platformctl). */
    url?: string;
    poolSize: number;
  };
  redis: {
    /** Absent only in platform, which then uses the in-process bus. */
    url?: string;
    keyPrefix: string;
  };
  /** Signing keys of the OpenID provider (auth-service, platform, platformctl). */
  signingKeys: {
    /** base64 of 32 bytes; absent only where a key kept in DATA_DIR may be used. */
    encryptionKey?: string;
    tokenTtlSeconds: number;
    /** `<reserved_domain>` of `service-account-<client_id>@<reserved_domain>`. */
    serviceAccountDomain: string;
  };
  sessions: {
    /** Idle lifetime of each refresh token (`refresh_expires_in`). */
    refreshTokenTtlSeconds: number;
    /** Absolute lifetime of a login: browser session and refresh-token family. */
    maxSeconds: number;
  };
  gateway: {
    /** Absolute path of the routing file; absent: the demo model only. */
    routingFile?: string;
    keyPrefix: string;
    serviceName: string;
    /** CIDR ranges allowed to call the gateway; empty: every network. */
    allowedNetworks: string[];
    logFlushMs: number;
  };
  chat: {
    /** The fixed `model` of the chat API. */
    modelName: string;
    heartbeatMs: number;
    streamTtlSeconds: number;
    /** 0: never archive. */
    archiveAfterDays: number;
  };
  agent: {
    /** Absent in platform until the host knows its own address (its own `/llm/v1`). */
    gatewayUrl?: string;
    gatewayApiKey?: string;
    clientId?: string;
    clientSecret?: string;
    models: { default: string; high_performance: string };
    maxSteps: number;
    turnTimeoutMs: number;
    concurrency: number;
    stallMs: number;
    coalesceMs: number;
  };
  /** Absolute path of a realm file to import at start. */
  realmImport?: string;
  /** Absolute path. */
  dataDir: string;
  log: { level: LogLevel };
}

export class ConfigError extends Error {
  constructor(
    readonly app: AppName,
    readonly problems: readonly { variable: string; problem: string }[],
  ) {
    super(`Invalid configuration for ${app}:\n` + problems.map((p) => `  ${p.variable}: ${p.problem}`).join('\n'));
    this.name = 'ConfigError';
  }
}

export const REALM = 'federation';

type Env = Record<string, string | undefined>;

/**
 * Reads and validates the variables of `app`. Every bad or missing value is reported at once,
 * each with its name and what is allowed; secrets are never echoed.
 */
export function loadConfig(app: AppName, env: Env = process.env, cwd = process.cwd()): ServiceConfig {
  const definitions = variables.filter((v) => (v.apps as readonly AppName[]).includes(app)) as VariableDefinition[];
  const specs = Object.fromEntries(definitions.map((d) => [d.name, validatorFor(d, app)]));
  // Empty strings count as unset, as in most twelve-factor tools (compose files often write `X=`).
  const present: Env = {};
  for (const d of definitions) {
    const raw = env[d.name];
    if (raw !== undefined && raw !== '') present[d.name] = raw;
  }
  const values = customCleanEnv(present, specs, (cleaned) => cleaned, {
    reporter: ({ errors }) => {
      const problems = Object.entries(errors).map(([name, error]) => {
        const definition = definitions.find((d) => d.name === name) as VariableDefinition;
        const reason =
          present[name] === undefined ? 'is required but not set' : describe(definition, present[name], error as Error);
        return { variable: name, problem: `${reason}; allowed: ${definition.allowed}` };
      });
      if (problems.length > 0) throw new ConfigError(app, problems);
    },
  }) as Partial<Record<VariableName, unknown>>;

  const has = (name: VariableName) => Object.prototype.hasOwnProperty.call(values, name);
  const port = (values.PORT as number | undefined) ?? 8080;
  const publicUrl = (values.PUBLIC_URL as string | undefined) ?? `http://localhost:${port}`;
  const authUrl = (values.AUTH_URL as string | undefined) ?? publicUrl;
  return {
    app,
    edition: (values.EDITION as Edition | undefined) ?? 'saas',
    http: {
      host: (values.HOST as string | undefined) ?? '0.0.0.0',
      port,
      publicUrl,
      shutdownTimeoutMs: ((values.SHUTDOWN_TIMEOUT_SECONDS as number | undefined) ?? 10) * 1000,
      trustProxyHops: (values.TRUST_PROXY_HOPS as number | undefined) ?? 0,
    },
    auth: {
      authUrl,
      issuer: `${authUrl}/realms/${REALM}`,
      jwksUrl: (values.AUTH_JWKS_URL as string | undefined) ?? `${authUrl}/${REALM}/auth/v1/jwks`,
      clockSkewSeconds: (values.AUTH_CLOCK_SKEW_SECONDS as number | undefined) ?? 10,
    },
    database: {
      url: has('DATABASE_URL') ? (values.DATABASE_URL as string | undefined) : undefined,
      poolSize: (values.DATABASE_POOL_SIZE as number | undefined) ?? 10,
    },
    redis: {
      url: has('REDIS_URL') ? (values.REDIS_URL as string | undefined) : undefined,
      keyPrefix: (values.REDIS_KEY_PREFIX as string | undefined) ?? 'fed:',
    },
    signingKeys: {
      encryptionKey: values.KEY_ENCRYPTION_KEY as string | undefined,
      tokenTtlSeconds: (values.ACCESS_TOKEN_TTL_SECONDS as number | undefined) ?? 300,
      serviceAccountDomain: (values.SERVICE_ACCOUNT_DOMAIN as string | undefined) ?? 'federation.invalid',
    },
    sessions: {
      refreshTokenTtlSeconds: (values.REFRESH_TOKEN_TTL_SECONDS as number | undefined) ?? 1800,
      maxSeconds: (values.SESSION_MAX_SECONDS as number | undefined) ?? 36_000,
    },
    gateway: {
      routingFile: values.LLM_GATEWAY_ROUTING_FILE
        ? path.resolve(cwd, values.LLM_GATEWAY_ROUTING_FILE as string)
        : undefined,
      keyPrefix: (values.LLM_GATEWAY_KEY_PREFIX as string | undefined) ?? 'fed_',
      serviceName: (values.LLM_GATEWAY_SERVICE_NAME as string | undefined) ?? 'federation',
      allowedNetworks: values.LLM_GATEWAY_ALLOWED_NETWORKS
        ? (values.LLM_GATEWAY_ALLOWED_NETWORKS as string).split(',')
        : [],
      logFlushMs: (values.LLM_GATEWAY_LOG_FLUSH_MS as number | undefined) ?? 1000,
    },
    chat: {
      modelName: (values.CHAT_MODEL_NAME as string | undefined) ?? 'federation-agent',
      heartbeatMs: ((values.CHAT_HEARTBEAT_SECONDS as number | undefined) ?? 15) * 1000,
      streamTtlSeconds: (values.CHAT_STREAM_TTL_SECONDS as number | undefined) ?? 300,
      archiveAfterDays: (values.CHAT_ARCHIVE_AFTER_DAYS as number | undefined) ?? 90,
    },
    agent: {
      gatewayUrl: values.AGENT_GATEWAY_URL as string | undefined,
      gatewayApiKey: values.AGENT_GATEWAY_API_KEY as string | undefined,
      clientId: values.AGENT_CLIENT_ID as string | undefined,
      clientSecret: values.AGENT_CLIENT_SECRET as string | undefined,
      models: {
        default: (values.AGENT_MODEL as string | undefined) ?? 'demo',
        high_performance: (values.AGENT_MODEL_HIGH_PERFORMANCE as string | undefined) ?? 'demo',
      },
      maxSteps: (values.AGENT_MAX_STEPS as number | undefined) ?? 12,
      turnTimeoutMs: ((values.AGENT_TURN_TIMEOUT_SECONDS as number | undefined) ?? 900) * 1000,
      concurrency: (values.AGENT_CONCURRENCY as number | undefined) ?? 20,
      stallMs: ((values.AGENT_STALL_SECONDS as number | undefined) ?? 30) * 1000,
      coalesceMs: (values.AGENT_COALESCE_MS as number | undefined) ?? 20,
    },
    realmImport: values.REALM_IMPORT ? path.resolve(cwd, values.REALM_IMPORT as string) : undefined,
    dataDir: path.resolve(cwd, (values.DATA_DIR as string | undefined) ?? './.data'),
    log: { level: (values.LOG_LEVEL as LogLevel | undefined) ?? 'info' },
  };
}

function describe(definition: VariableDefinition, raw: string | undefined, error: Error): string {
  if (definition.sensitive) return 'has an invalid value (not shown: sensitive)';
  const shown = raw !== undefined && raw.length > 80 ? `${raw.slice(0, 77)}...` : raw;
  return `"${shown}" is invalid (${error.message.replace(/^Invalid input: /, '')})`;
}

/** The configuration as printable rows, secrets masked (for `platformctl config check` and boot logs). */
export function describeConfig(
  app: AppName,
  env: Env = process.env,
): { name: string; value: string; source: string }[] {
  return variables
    .filter((v) => (v.apps as readonly AppName[]).includes(app))
    .map((d: VariableDefinition) => {
      const raw = env[d.name];
      const set = raw !== undefined && raw !== '';
      const value = set ? (d.sensitive ? maskSecret(raw) : raw) : (d.defaultFor(app) ?? '(unset)');
      return { name: d.name, value, source: set ? 'environment' : 'default' };
    });
}

/** Keeps a URL's shape but hides its password; any other secret is hidden whole. */
export function maskSecret(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.password) url.password = '****';
    return url.toString();
  } catch {
    return '****';
  }
}

/** Nest injection token of the app's ServiceConfig. */
export const SERVICE_CONFIG = Symbol.for('fed.config.ServiceConfig');
