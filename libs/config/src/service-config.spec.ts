import { readFileSync } from 'node:fs';
import path from 'node:path';
import { renderAppRequirements, renderConfigTable } from './config-table';
import { ConfigError, describeConfig, loadConfig } from './service-config';

const serviceEnv = { DATABASE_URL: 'postgres://app:s3cret@db:5432/fed', REDIS_URL: 'redis://redis:6379' };

function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.map((p) => `${p.variable}: ${p.problem}`);
    throw error;
  }
  return [];
}

describe('service configuration', () => {
  it('builds a typed configuration with the documented defaults', () => {
    const config = loadConfig('chat-service', serviceEnv, '/srv');
    expect(config.http).toEqual({
      accessLogEnabled: true,
      host: '0.0.0.0',
      port: 8080,
      publicUrl: 'http://localhost:8080',
      shutdownTimeoutMs: 10000,
      trustProxyHops: 0,
    });
    expect(config.auth).toEqual({
      authUrl: 'http://localhost:8080',
      issuer: 'http://localhost:8080/realms/federation',
      jwksUrl: 'http://localhost:8080/federation/auth/v1/jwks',
      clockSkewSeconds: 10,
    });
    expect(config.database).toEqual({ url: serviceEnv.DATABASE_URL, poolSize: 10 });
    expect(config.redis).toEqual({ url: serviceEnv.REDIS_URL, keyPrefix: 'fed:' });
    expect(config.edition).toBe('saas');
  });

  it('derives the issuer from AUTH_URL and strips a trailing slash', () => {
    const config = loadConfig('chat-service', { ...serviceEnv, AUTH_URL: 'https://id.example.com/' });
    expect(config.auth.issuer).toBe('https://id.example.com/realms/federation');
  });

  it('stops a service without DATABASE_URL or REDIS_URL and names both variables', () => {
    const problems = problemsOf(() => loadConfig('llm-gateway', {}));
    expect(problems).toEqual([
      expect.stringMatching(/^DATABASE_URL: is required but not set; allowed: a postgres:\/\/ or postgresql:\/\/ URL$/),
      expect.stringMatching(/^REDIS_URL: is required but not set; allowed: a redis:\/\/ or rediss:\/\/ URL$/),
    ]);
  });

  it('lets platform run without DATABASE_URL and REDIS_URL (embedded database, in-process bus)', () => {
    const config = loadConfig('platform', {}, '/home/dev/fed');
    expect(config.database.url).toBeUndefined();
    expect(config.redis.url).toBeUndefined();
    expect(config.http.host).toBe('127.0.0.1');
    expect(config.dataDir).toBe('/home/dev/fed/.data');
  });

  it("drains platform's running turns for less than Docker's 10 s stop timeout, a runtime's for less than Kubernetes' 30 s", () => {
    expect(loadConfig('platform', {}).agent.drainMs).toBe(5000);
    expect(loadConfig('agent-runtime', serviceEnv).agent.drainMs).toBe(25_000);
  });

  it('names a bad value and what is allowed', () => {
    expect(problemsOf(() => loadConfig('platform', { PORT: 'eighty' }))).toEqual([
      'PORT: "eighty" is invalid ("eighty" is not an integer); allowed: an integer from 1 to 65535',
    ]);
    expect(problemsOf(() => loadConfig('platform', { PORT: '70000', EDITION: 'enterprise' }))).toEqual([
      'PORT: "70000" is invalid (70000 is outside 1-65535); allowed: an integer from 1 to 65535',
      'EDITION: "enterprise" is invalid ("enterprise" is not one of saas, marketplace); allowed: saas or marketplace',
    ]);
  });

  it('never echoes the value of a secret it refuses', () => {
    const problems = problemsOf(() =>
      loadConfig('chat-service', { ...serviceEnv, DATABASE_URL: 'mysql://root:hunter2@db/x' }),
    );
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('DATABASE_URL');
    expect(problems[0]).not.toContain('hunter2');
  });

  it('masks passwords when describing the configuration', () => {
    const rows = describeConfig('chat-service', serviceEnv);
    const database = rows.find((r) => r.name === 'DATABASE_URL');
    expect(database?.value).toBe('postgres://app:****@db:5432/fed');
    expect(rows.find((r) => r.name === 'PORT')).toEqual({ name: 'PORT', value: '8080', source: 'default' });
  });

  it('requires a 32-byte base64 KEY_ENCRYPTION_KEY in auth-service, without echoing a bad one', () => {
    expect(problemsOf(() => loadConfig('auth-service', serviceEnv))).toEqual([
      expect.stringMatching(/^KEY_ENCRYPTION_KEY: is required but not set; allowed: 32 random bytes, base64-encoded/),
    ]);
    const short = problemsOf(() => loadConfig('auth-service', { ...serviceEnv, KEY_ENCRYPTION_KEY: 'c2hvcnQ=' }));
    expect(short).toEqual([expect.stringContaining('KEY_ENCRYPTION_KEY: has an invalid value (not shown: sensitive)')]);
    const key = Buffer.alloc(32, 7).toString('base64');
    expect(loadConfig('auth-service', { ...serviceEnv, KEY_ENCRYPTION_KEY: key }).signingKeys).toEqual({
      encryptionKey: key,
      tokenTtlSeconds: 300,
      serviceAccountDomain: 'federation.invalid',
    });
    expect(loadConfig('platform', {}).signingKeys.encryptionKey).toBeUndefined();
  });

  it('treats an empty value as unset', () => {
    expect(loadConfig('platform', { DATABASE_URL: '', PORT: '' }).database.url).toBeUndefined();
  });

  it('lists every variable in the README configuration table', () => {
    const readme = readFileSync(path.resolve(__dirname, '../../../README.md'), 'utf8');
    const section = /<!-- config-table:start -->\n([\s\S]*?)\n<!-- config-table:end -->/.exec(readme);
    expect(section?.[1]).toBe(renderConfigTable());
  });

  it("lists each app's required variables in docs/configuration.md", () => {
    const page = readFileSync(path.resolve(__dirname, '../../../docs/configuration.md'), 'utf8');
    const section = /<!-- app-requirements:start -->\n([\s\S]*?)\n<!-- app-requirements:end -->/.exec(page);
    expect(section?.[1]).toBe(renderAppRequirements());
  });

  it('gives an app only the sections of the variables it reads', () => {
    const gateway = loadConfig('llm-gateway', serviceEnv);
    expect(Object.keys(gateway).sort()).toEqual([
      'app',
      'auth',
      'database',
      'edition',
      'gateway',
      'guardrails',
      'http',
      'log',
      'redis',
      'tracing',
    ]);
    // @ts-expect-error llm-gateway reads no CHAT_ variable, so its configuration has no chat section
    expect(gateway.chat).toBeUndefined();
    const protocols = loadConfig('agent-protocols', {
      ...serviceEnv,
      PROTOCOL_BODY_LIMIT_MB: '2',
      MCP_FILE_SIZE_LIMIT_MB: '0.5',
    });
    expect(protocols.protocols).toEqual({ bodyLimitBytes: 2 * 1024 * 1024, mcpInlineFileBytes: 512 * 1024 });
    expect(() => loadConfig('agent-protocols', { ...serviceEnv, MCP_FILE_SIZE_LIMIT_MB: '101' })).toThrow(
      /MCP_FILE_SIZE_LIMIT_MB/,
    );
    expect(Object.keys(loadConfig('platform', { REALM_IMPORT: 'realm.json' })).sort()).toEqual([
      'agent',
      'app',
      'auth',
      'chat',
      'dataDir',
      'database',
      'edition',
      'files',
      'gateway',
      'guardrails',
      'http',
      'log',
      'logs',
      'memory',
      'notify',
      'protocols',
      'realmImport',
      'redis',
      'registration',
      'sessions',
      'signingKeys',
      'storage',
      // A section whose variables are all unset is there, empty (TOOL_SERVER_SECRET_KEY, GUARDRAIL_RULES_FILE).
      'toolServers',
      'tracing',
      'web',
    ]);
  });

  it('fills a section it owns with the defaults of the variables it does not read', () => {
    // agent-runtime reads CHAT_MODEL_NAME, not CHAT_HEARTBEAT_SECONDS: the environment cannot change the latter.
    const config = loadConfig('agent-runtime', {
      ...serviceEnv,
      CHAT_HEARTBEAT_SECONDS: '5',
      CHAT_MODEL_NAME: 'fed-x',
    });
    expect(config.chat).toEqual({
      modelName: 'fed-x',
      heartbeatMs: 15_000,
      streamTtlSeconds: 300,
      archiveAfterDays: 90,
    });
  });

  it('derives a default from the variables it names', () => {
    const config = loadConfig('platform', { PORT: '9090', AUTH_URL: 'https://id.example.com/' });
    expect(config.http.publicUrl).toBe('http://localhost:9090');
    expect(config.auth.jwksUrl).toBe('https://id.example.com/federation/auth/v1/jwks');
    expect(config.agent.gatewayUrl).toBe('http://127.0.0.1:9090/llm/v1');
    expect(loadConfig('agent-runtime', serviceEnv).agent.gatewayUrl).toBe('http://llm-gateway:8080/llm/v1');
  });

  it("puts the web app's UI resource sandbox beside PORT, on another origin than PUBLIC_URL", () => {
    expect(loadConfig('platform', { PORT: '9090' }).web).toEqual({
      sandboxPort: 9091,
      sandboxUrl: 'http://localhost:9091',
    });
    expect(loadConfig('platform', { WEB_SANDBOX_URL: 'https://ui.example.net/' }).web.sandboxUrl).toBe(
      'https://ui.example.net',
    );
    expect(problemsOf(() => loadConfig('platform', { PORT: '65535' }))).toEqual([
      'WEB_SANDBOX_PORT: its default "65536" is invalid (65536 is outside 1-65535); set it; allowed: an integer from 1 to 65535, not PORT',
    ]);
    expect(
      problemsOf(() =>
        loadConfig('platform', { PORT: '9090', WEB_SANDBOX_PORT: '9090', WEB_SANDBOX_URL: 'http://127.0.0.1:9090' }),
      ),
    ).toEqual(['WEB_SANDBOX_PORT: must differ from PORT']);
    expect(
      problemsOf(() =>
        loadConfig('platform', { PUBLIC_URL: 'https://chat.example.com', WEB_SANDBOX_URL: 'https://chat.example.com' }),
      ),
    ).toEqual(["WEB_SANDBOX_URL: must be another origin than PUBLIC_URL's"]);
    expect(problemsOf(() => loadConfig('platform', { WEB_SANDBOX_URL: 'https://ui.example.net/sandbox' }))[0]).toMatch(
      /^WEB_SANDBOX_URL: .*not an origin/,
    );
    // @ts-expect-error only the app that serves the web app has the sandbox
    expect(loadConfig('chat-service', serviceEnv).web).toBeUndefined();
  });

  it('turns seconds into milliseconds and relative paths into absolute ones', () => {
    const config = loadConfig(
      'platform',
      { SHUTDOWN_TIMEOUT_SECONDS: '3', AGENT_STALL_SECONDS: '7', REALM_IMPORT: 'realm.json', DATA_DIR: '/var/fed' },
      '/srv',
    );
    expect(config.http.shutdownTimeoutMs).toBe(3000);
    expect(config.agent.stallMs).toBe(7000);
    expect(config.realmImport).toBe('/srv/realm.json');
    expect(config.dataDir).toBe('/var/fed');
  });

  it('describes a variable without a value as not set, and a default with the variables it names filled in', () => {
    const rows = describeConfig('agent-runtime', { ...serviceEnv, PORT: '9000' });
    expect(rows.find((r) => r.name === 'AGENT_GATEWAY_API_KEY')).toEqual({
      name: 'AGENT_GATEWAY_API_KEY',
      value: '(not set)',
      source: 'not set',
    });
    expect(rows.find((r) => r.name === 'AUTH_URL')).toEqual({
      name: 'AUTH_URL',
      value: 'http://localhost:9000',
      source: 'default',
    });
  });
});
