import { isIP } from 'node:net';
import path from 'node:path';
import { type AppName, appNames, serviceNames } from './app-names';

// Every environment variable of the platform. Each app's configuration type is derived from this table
// (service-config.ts), and a test checks the README's table against it, so none of them can drift.

export interface ParseContext {
  /** Relative paths are resolved against it. */
  cwd: string;
}

export interface VariableDefinition<T = unknown> {
  name: string;
  /** `section.field` (`http.port`), a nested field (`agent.models.default`) or a top-level key (`edition`). */
  key: string;
  description: string;
  /** Shown when a value is refused. */
  allowed: string;
  /** Raw, per app; `undefined`: none. `{NAME}` stands for the value of the earlier variable NAME. */
  defaultFor(app: AppName): string | undefined;
  /** Shown in the README. */
  defaultText: string;
  apps: readonly AppName[];
  requiredIn: readonly AppName[];
  sensitive: boolean;
  parse(raw: string, context: ParseContext): T;
}

type DefaultSpec = string | Partial<Record<AppName | '*', string>>;

/** What outlives a token's `exp` (a revocation) keeps at least this long. */
export const MAX_CLOCK_SKEW_SECONDS = 300;

const httpApps = [...serviceNames, 'platform'] as const;
const everyApp = appNames;
/** Every app but the web app's deployable, which keeps no data. */
const dataApps = [...serviceNames, 'platform', 'platformctl'] as const;
/** What the web app's deployable reads: where it listens, the public addresses, the sandbox, the chat model. */
const webApps = [...httpApps, 'web-service'] as const;
// admin-service publishes library files (`POST /api/v1/admin/library/files`).
const storageApps = [
  'chat-service',
  'agent-runtime',
  'agent-protocols',
  'admin-service',
  'platform',
  'platformctl',
] as const;

const fail = (message: string): never => {
  throw new Error(message);
};

const integer = (min: number, max: number) => (raw: string) => {
  if (!/^-?[0-9]+$/.test(raw.trim())) fail(`"${raw}" is not an integer`);
  const value = Number(raw);
  if (value < min || value > max) fail(`${value} is outside ${min}-${max}`);
  return value;
};

/** Operators write seconds, timers take milliseconds. */
const secondsAsMilliseconds = (min: number, max: number) => (raw: string) => integer(min, max)(raw) * 1000;

const oneOf =
  <const T extends string>(choices: readonly T[]) =>
  (raw: string): T => {
    const choice = choices.find((c) => c === raw);
    return choice ?? fail(`"${raw}" is not one of ${choices.join(', ')}`);
  };

const urlWith = (protocols: readonly string[]) => (raw: string) => {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return fail('not a URL');
  }
  if (!protocols.includes(url.protocol)) fail(`scheme ${url.protocol} is not one of ${protocols.join(', ')}`);
  return raw;
};

const httpUrl = (raw: string) => urlWith(['http:', 'https:'])(raw).replace(/\/+$/, '');

/** An http(s) URL that names an origin only (a trailing `/` is dropped). */
const httpOrigin = (raw: string) => {
  const url = new URL(httpUrl(raw));
  if (url.pathname !== '/' || url.search || url.hash || url.username || url.password) {
    fail('not an origin (scheme, host and port only)');
  }
  return url.origin;
};

const nonEmpty = (raw: string) => (raw.trim().length > 0 ? raw : fail('empty'));

const boolean = (raw: string) =>
  raw === 'true' ? true : raw === 'false' ? false : fail(`"${raw}" is not true or false`);

/** Relative to the working directory. */
const filePath = (raw: string, { cwd }: ParseContext) => path.resolve(cwd, nonEmpty(raw));

/** Normalized to `a.b.c.d/n` entries. */
export function parseNetworks(raw: string): string[] {
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
  if (entries.length === 0) fail('no network given');
  return entries.map((entry) => {
    const [address = '', prefix, extra] = entry.split('/');
    const family = isIP(address);
    if (family === 0 || extra !== undefined) return fail(`"${entry}" is not an IP address or CIDR range`);
    const max = family === 4 ? 32 : 128;
    if (prefix === undefined) return `${address}/${max}`;
    if (!/^[0-9]{1,3}$/.test(prefix) || Number(prefix) > max) return fail(`"${entry}" has a bad prefix length`);
    return `${address}/${Number(prefix)}`;
  });
}

function defaultTextOf(defaults: DefaultSpec | undefined): string {
  if (defaults === undefined) return '-';
  if (typeof defaults === 'string') return `\`${defaults}\``;
  return Object.entries(defaults)
    .map(([app, value]) => (app === '*' ? `\`${value}\`` : `\`${value}\` (${app})`))
    .join(', ');
}

/** Literal types are kept, so that service-config.ts can derive each app's configuration type. */
function define<
  const Name extends string,
  const Key extends string,
  const Apps extends readonly AppName[],
  T,
  const Default extends DefaultSpec | undefined = undefined,
>(definition: {
  name: Name;
  key: Key;
  description: string;
  allowed: string;
  default?: Default;
  defaultText?: string;
  apps: Apps;
  requiredIn?: readonly AppName[];
  sensitive?: boolean;
  parse(raw: string, context: ParseContext): T;
}): VariableDefinition<T> & { name: Name; key: Key; apps: Apps; default: Default | undefined } {
  const { default: defaults, defaultText, requiredIn, sensitive, ...rest } = definition;
  return {
    ...rest,
    // Kept as given for the configuration's type.
    default: defaults,
    defaultFor: (app) =>
      typeof defaults === 'string' ? defaults : defaults === undefined ? undefined : (defaults[app] ?? defaults['*']),
    defaultText: defaultText ?? defaultTextOf(defaults),
    requiredIn: requiredIn ?? [],
    sensitive: sensitive ?? false,
  };
}

export const variables = [
  define({
    name: 'HOST',
    key: 'http.host',
    description: 'Interface the HTTP server listens on.',
    allowed: 'an IP address or host name',
    default: { '*': '0.0.0.0', platform: '127.0.0.1' },
    apps: webApps,
    parse: nonEmpty,
  }),
  define({
    name: 'PORT',
    key: 'http.port',
    description: 'TCP port of the HTTP server.',
    allowed: 'an integer from 1 to 65535',
    default: '8080',
    apps: webApps,
    parse: integer(1, 65535),
  }),
  define({
    name: 'PUBLIC_URL',
    key: 'http.publicUrl',
    description: 'External base address of the API host ({base_url}), used in links and printed URLs.',
    allowed: 'an http or https URL',
    default: 'http://localhost:{PORT}',
    apps: [...webApps, 'platformctl'],
    parse: httpUrl,
  }),
  define({
    name: 'AUTH_URL',
    key: 'auth.authUrl',
    description:
      'External base address of the authentication host ({auth_url}); the issuer is {auth_url}/realms/federation.',
    allowed: 'an http or https URL',
    default: '{PUBLIC_URL}',
    apps: webApps,
    parse: httpUrl,
  }),
  define({
    name: 'AUTH_JWKS_URL',
    key: 'auth.jwksUrl',
    description:
      'Where services fetch the signing keys that verify access tokens (an in-cluster address in distributed mode).',
    allowed: 'an http or https URL',
    default: '{AUTH_URL}/federation/auth/v1/jwks',
    apps: httpApps,
    parse: httpUrl,
  }),
  define({
    name: 'AUTH_CLOCK_SKEW_SECONDS',
    key: 'auth.clockSkewSeconds',
    description: 'Clock difference tolerated when checking `exp`, `nbf` and `iat` of tokens.',
    allowed: `an integer from 0 to ${MAX_CLOCK_SKEW_SECONDS}`,
    default: '10',
    apps: [...httpApps, 'platformctl'],
    parse: integer(0, MAX_CLOCK_SKEW_SECONDS),
  }),
  define({
    name: 'DATABASE_URL',
    key: 'database.url',
    description:
      'PostgreSQL connection URL. In `platform` and `platformctl`, leaving it unset runs the embedded PostgreSQL (PGlite) under DATA_DIR.',
    allowed: 'a postgres:// or postgresql:// URL',
    apps: dataApps,
    requiredIn: serviceNames,
    sensitive: true,
    parse: urlWith(['postgres:', 'postgresql:']),
  }),
  define({
    name: 'DATABASE_POOL_SIZE',
    key: 'database.poolSize',
    description: 'Most PostgreSQL connections one process opens.',
    allowed: 'an integer from 1 to 200',
    default: '10',
    apps: dataApps,
    parse: integer(1, 200),
  }),
  define({
    name: 'REDIS_URL',
    key: 'redis.url',
    description:
      'Redis URL for the queue, run streams and signals. In `platform`, leaving it unset uses the in-process bus.',
    allowed: 'a redis:// or rediss:// URL',
    apps: dataApps,
    requiredIn: serviceNames,
    sensitive: true,
    parse: urlWith(['redis:', 'rediss:']),
  }),
  define({
    name: 'REDIS_KEY_PREFIX',
    key: 'redis.keyPrefix',
    description: 'Prefix of every Redis key and channel, so several installations can share one Redis.',
    allowed: '1-32 characters of letters, digits, `:`, `_` or `-`',
    default: 'fed:',
    apps: dataApps,
    parse: (raw) => (/^[A-Za-z0-9:_-]{1,32}$/.test(raw) ? raw : fail(`"${raw}" has other characters or length`)),
  }),
  define({
    name: 'DATA_DIR',
    key: 'dataDir',
    description: 'Directory of the embedded PostgreSQL and other local state in all-in-one mode.',
    allowed: 'a directory path',
    default: './.data',
    apps: ['platform', 'platformctl'],
    parse: filePath,
  }),
  // storage (libs/storage): where file bytes live.
  define({
    name: 'BLOB_STORE',
    key: 'storage.kind',
    description:
      'Where the bytes of files (uploads, deliverables, library files) are kept: `fs`, a directory (BLOB_DIR); `s3`, a bucket of S3 or of an S3-compatible service (S3_BUCKET and the other S3_ variables).',
    allowed: 'fs or s3',
    default: 'fs',
    apps: storageApps,
    parse: oneOf(['fs', 's3']),
  }),
  define({
    name: 'BLOB_DIR',
    key: 'storage.dir',
    description:
      'Directory of the blobs when BLOB_STORE is `fs`, created at start (mode 0700). Deployed as separate services, every instance of chat-service, agent-runtime, agent-protocols and admin-service must mount the same volume there (or use `s3`).',
    allowed: 'a directory path',
    default: { '*': '/var/lib/federation/blobs', platform: '{DATA_DIR}/blobs', platformctl: '{DATA_DIR}/blobs' },
    apps: storageApps,
    parse: filePath,
  }),
  define({
    name: 'S3_ENDPOINT',
    key: 'storage.s3.endpoint',
    description:
      'Address of an S3-compatible service (MinIO, Ceph, ...: `http://minio:9000`) when BLOB_STORE is `s3`; unset: AWS S3 in S3_REGION.',
    allowed: 'an http or https URL',
    apps: storageApps,
    parse: httpUrl,
  }),
  define({
    name: 'S3_REGION',
    key: 'storage.s3.region',
    description: 'Region of the bucket when BLOB_STORE is `s3`.',
    allowed: 'a region name (`eu-west-1`)',
    default: 'us-east-1',
    apps: storageApps,
    parse: (raw: string) => (/^[a-z0-9-]{1,64}$/.test(raw) ? raw : fail('not lower-case letters, digits and -')),
  }),
  define({
    name: 'S3_BUCKET',
    key: 'storage.s3.bucket',
    description:
      'Bucket of the blobs; required when BLOB_STORE is `s3` (the app refuses to start without it). Give it a lifecycle rule that aborts incomplete multipart uploads after a day.',
    allowed: 'an S3 bucket name',
    apps: storageApps,
    parse: (raw: string) =>
      /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(raw) ? raw : fail(`"${raw}" is not an S3 bucket name`),
  }),
  define({
    name: 'S3_ACCESS_KEY_ID',
    key: 'storage.s3.accessKeyId',
    description:
      "Access key of the bucket, with S3_SECRET_ACCESS_KEY. Without both, the AWS SDK's default credentials are used (AWS_ variables, web identity, instance role).",
    allowed: 'an access key id',
    apps: storageApps,
    parse: nonEmpty,
  }),
  define({
    name: 'S3_SECRET_ACCESS_KEY',
    key: 'storage.s3.secretAccessKey',
    description: 'Secret of S3_ACCESS_KEY_ID.',
    allowed: 'a secret access key',
    apps: storageApps,
    sensitive: true,
    parse: nonEmpty,
  }),
  define({
    name: 'S3_FORCE_PATH_STYLE',
    key: 'storage.s3.forcePathStyle',
    description:
      'Address objects as `{endpoint}/{bucket}/{key}` instead of `{bucket}.{endpoint}/{key}`: what most S3-compatible services (MinIO) need.',
    allowed: 'true or false',
    default: 'false',
    apps: storageApps,
    parse: boolean,
  }),
  define({
    name: 'KEY_ENCRYPTION_KEY',
    key: 'signingKeys.encryptionKey',
    description:
      "Encrypts the signing keys stored in the database (AES-256-GCM), and tenants' identity-provider secrets under a key derived from it. In `platform` and `platformctl`, leaving it unset uses a key generated once and kept in DATA_DIR/key-encryption-key. admin-service needs auth-service's value to rotate or revoke signing keys and to store a provider's secret over HTTP (`/api/v1/admin/signing-keys`, `/api/v1/admin/tenants`); without it those calls are refused (400) and the rest works.",
    allowed: '32 random bytes, base64-encoded (e.g. `openssl rand -base64 32`)',
    apps: ['auth-service', 'admin-service', 'platform', 'platformctl'],
    requiredIn: ['auth-service'],
    sensitive: true,
    parse: (raw) =>
      Buffer.from(raw, 'base64').length === 32 && /^[A-Za-z0-9+/]{43}=$/.test(raw)
        ? raw
        : fail('not 32 bytes of base64'),
  }),
  define({
    name: 'ACCESS_TOKEN_TTL_SECONDS',
    key: 'signingKeys.tokenTtlSeconds',
    description:
      "Lifetime of access and ID tokens (`expires_in`); a retired signing key stays published this long after its last token. admin-service reads it to keep the signal that ends a demoted or deleted user's sessions for as long as their tokens live.",
    allowed: 'an integer from 60 to 86400',
    default: '300',
    apps: ['auth-service', 'admin-service', 'platform', 'platformctl'],
    parse: integer(60, 86400),
  }),
  define({
    name: 'REFRESH_TOKEN_TTL_SECONDS',
    key: 'sessions.refreshTokenTtlSeconds',
    description:
      'Idle lifetime of a refresh token (`refresh_expires_in`): each refresh issues a new one for this long, within the session maximum.',
    allowed: 'an integer from 300 to 2592000',
    default: '1800',
    apps: ['auth-service', 'platform'],
    parse: integer(300, 2_592_000),
  }),
  define({
    name: 'SESSION_MAX_SECONDS',
    key: 'sessions.maxSeconds',
    description:
      'Longest a login lasts: the browser session and its refresh-token family end this long after the user authenticated.',
    allowed: 'an integer from 300 to 31536000',
    default: '36000',
    apps: ['auth-service', 'platform'],
    parse: integer(300, 31_536_000),
  }),
  define({
    name: 'OIDC_DYNAMIC_REGISTRATION',
    key: 'registration.dynamic',
    description:
      'Opens RFC 7591 dynamic client registration (`POST /federation/auth/v1/register`, listed in discovery as `registration_endpoint`): anyone may register a public client limited to `mcp:all` and `a2a:all`, whose users always see a consent page calling it unverified. Off, the route answers 404; MCP clients can still sign in with a Client ID Metadata Document.',
    allowed: 'true or false',
    default: 'false',
    apps: ['auth-service', 'platform'],
    parse: boolean,
  }),
  define({
    name: 'OIDC_DYNAMIC_REGISTRATION_PER_HOUR',
    key: 'registration.perAddressPerHour',
    description:
      'Dynamic registrations one client address may make per hour (counted in Redis, shared by every instance); past it, 429.',
    allowed: 'an integer from 1 to 10000',
    default: '20',
    apps: ['auth-service', 'platform'],
    parse: integer(1, 10_000),
  }),
  define({
    name: 'OIDC_SELF_REGISTERED_CLIENTS_UNUSED_DAYS',
    key: 'registration.unusedDays',
    description:
      'Clients that registered themselves (dynamically, or by a metadata document whose row has expired) are deleted once they are older than this many days and nobody holds a token family of theirs or is signing in with them (checked every 10 minutes). A deleted dynamic client registers again; a metadata document is fetched again on its next use.',
    allowed: 'an integer from 1 to 3650',
    default: '30',
    apps: ['auth-service', 'platform'],
    parse: integer(1, 3650),
  }),
  define({
    name: 'OIDC_CLIENT_METADATA_FETCHES_PER_HOST_PER_HOUR',
    key: 'registration.metadataFetchesPerHostPerHour',
    description:
      'Client ID Metadata Documents fetched per hour from one origin (scheme, host and port), counted in Redis and shared by every instance: anyone can name any URL as a `client_id`, so this bounds what the server fetches from one host for strangers. Past it, a client whose row is stored (even expired) keeps working; a new one is unknown until the hour ends. A refused document is not fetched again for 60 seconds.',
    allowed: 'an integer from 1 to 10000',
    default: '60',
    apps: ['auth-service', 'platform'],
    parse: integer(1, 10_000),
  }),
  define({
    name: 'OIDC_CLIENT_METADATA_FETCHES_PER_ADDRESS_PER_HOUR',
    key: 'registration.metadataFetchesPerAddressPerHour',
    description:
      'Client ID Metadata Documents one client address (as `TRUST_PROXY_HOPS` tells it) may make the server fetch per hour, counted in Redis and shared by every instance: the first use of a new metadata-document client, or of one whose document has expired, costs one. Bounds how many hosts one requester can make the server reach; past it, stored clients keep working and new ones are unknown to that address until the hour ends.',
    allowed: 'an integer from 1 to 10000',
    default: '30',
    apps: ['auth-service', 'platform'],
    parse: integer(1, 10_000),
  }),
  define({
    name: 'OIDC_CLIENT_METADATA_ALLOW_PRIVATE_ADDRESSES',
    key: 'registration.allowPrivateAddresses',
    description:
      'For development and tests: lets Client ID Metadata Documents be fetched from loopback, private and link-local addresses. Off, a `client_id` URL whose host is or resolves to such an address is refused (the fetch runs inside the deployment, so it must not reach its internals).',
    allowed: 'true or false',
    default: 'false',
    apps: ['auth-service', 'platform'],
    parse: boolean,
  }),
  define({
    name: 'OIDC_CLIENT_METADATA_CA_FILE',
    key: 'registration.metadataCaFile',
    description:
      'For development and tests: a PEM file of extra certificate authorities trusted (besides the system ones) when fetching Client ID Metadata Documents, e.g. a self-signed test server. Unset: the system authorities only.',
    allowed: 'a path to a PEM file',
    apps: ['auth-service', 'platform'],
    parse: filePath,
  }),
  define({
    name: 'SERVICE_ACCOUNT_DOMAIN',
    key: 'signingKeys.serviceAccountDomain',
    description:
      'The reserved domain of service-account names in client-credentials tokens: `preferred_username` = `service-account-<client_id>@<domain>`.',
    allowed: 'a domain name',
    default: 'federation.invalid',
    apps: ['auth-service', 'platform'],
    parse: (raw) =>
      /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i.test(raw)
        ? raw.toLowerCase()
        : fail(`"${raw}" is not a domain name`),
  }),
  define({
    name: 'REALM_IMPORT',
    key: 'realmImport',
    description:
      'A realm file (docs/realm.schema.json) imported at start: tenants, clients and users are created or updated, all or nothing; a bad file stops the start.',
    allowed: 'a path to a JSON file',
    apps: ['auth-service', 'platform'],
    parse: filePath,
  }),
  define({
    name: 'LOG_LEVEL',
    key: 'log.level',
    description: 'Least severe level written to the log.',
    allowed: 'fatal, error, warn, info, debug, trace or silent',
    default: 'info',
    apps: everyApp,
    parse: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
  }),
  define({
    name: 'LOG_FORMAT',
    key: 'log.format',
    description:
      "How the all-in-one platform writes its log: `json`, one JSON object a line (the services' only form); `pretty`, one short line a record for a person (time, level, message, plain fields; errors with their stack; Nest's per-module and per-route start lines only at LOG_LEVEL debug); `auto`, `pretty` when stdout is a terminal and `json` otherwise.",
    allowed: 'json, pretty or auto',
    // The services, which do not read it, write JSON.
    default: { '*': 'json', platform: 'auto' },
    defaultText: '`auto`',
    apps: ['platform'],
    parse: oneOf(['json', 'pretty', 'auto']),
  }),
  // tracing (libs/observability tracing): read before anything else is loaded. The OpenTelemetry SDK reads
  // the standard OTEL_* variables itself; these rows validate and document the ones we support.
  define({
    name: 'OTEL_EXPORTER_OTLP_ENDPOINT',
    key: 'tracing.endpoint',
    description:
      'Base address of an OpenTelemetry collector (`http://otel-collector:4318`): the service then sends its traces there (`{endpoint}/v1/traces`), one trace per chat turn across the services (docs/operations.md, "Tracing"). Unset, together with OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: no tracing at all.',
    allowed: 'an http or https URL',
    apps: httpApps,
    parse: httpUrl,
  }),
  define({
    name: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
    key: 'tracing.tracesEndpoint',
    description:
      'Full address traces are sent to (`http://otel-collector:4318/v1/traces`), instead of the one derived from OTEL_EXPORTER_OTLP_ENDPOINT; setting it turns tracing on too.',
    allowed: 'an http or https URL',
    apps: httpApps,
    parse: httpUrl,
  }),
  define({
    name: 'OTEL_EXPORTER_OTLP_PROTOCOL',
    key: 'tracing.protocol',
    description: 'Encoding of the traces sent to the collector.',
    allowed: 'http/protobuf, http/json or grpc',
    default: 'http/protobuf',
    apps: httpApps,
    parse: oneOf(['http/protobuf', 'http/json', 'grpc']),
  }),
  define({
    name: 'OTEL_EXPORTER_OTLP_HEADERS',
    key: 'tracing.headers',
    description: 'Headers of every export request, as a collector or tracing vendor asks for them (an API key).',
    allowed: 'comma-separated `name=value` pairs (values URL-encoded)',
    apps: httpApps,
    sensitive: true,
    parse: (raw: string) =>
      raw.split(',').every((pair) => /^\s*[!#$%&'*+.^_`|~0-9A-Za-z-]+\s*=[^,]*$/.test(pair))
        ? raw
        : fail('not comma-separated name=value pairs'),
  }),
  define({
    name: 'OTEL_SERVICE_NAME',
    key: 'tracing.serviceName',
    description: "The `service.name` of the service's spans.",
    allowed: 'a name of 1 to 100 characters',
    defaultText: "- (the app's name: `chat-service`, `platform`, ...)",
    apps: httpApps,
    parse: (raw: string) => (raw.trim().length > 0 && raw.length <= 100 ? raw : fail('empty or longer than 100')),
  }),
  define({
    name: 'OTEL_TRACES_SAMPLER',
    key: 'tracing.sampler',
    description:
      "Which traces are kept: `parentbased_traceidratio` with OTEL_TRACES_SAMPLER_ARG keeps that fraction of turns (whole: a service follows its caller's decision).",
    allowed:
      'always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off or parentbased_traceidratio',
    default: 'parentbased_always_on',
    apps: httpApps,
    parse: oneOf([
      'always_on',
      'always_off',
      'traceidratio',
      'parentbased_always_on',
      'parentbased_always_off',
      'parentbased_traceidratio',
    ]),
  }),
  define({
    name: 'OTEL_TRACES_SAMPLER_ARG',
    key: 'tracing.samplerRatio',
    description: 'The fraction of traces kept by the `traceidratio` samplers.',
    allowed: 'a number from 0 to 1',
    default: '1',
    apps: httpApps,
    parse: (raw: string) =>
      /^(0(\.[0-9]+)?|1(\.0+)?|\.[0-9]+)$/.test(raw.trim()) ? Number(raw) : fail('not a number from 0 to 1'),
  }),
  define({
    name: 'TRUST_PROXY_HOPS',
    key: 'http.trustProxyHops',
    description:
      "How many reverse proxies (ingress, load balancer) stand in front and append to `X-Forwarded-For`: the caller's address, which brute-force protection counts by, is taken that many entries from the right. 0: the TCP peer.",
    allowed: 'an integer from 0 to 5',
    default: '0',
    apps: httpApps,
    parse: integer(0, 5),
  }),
  define({
    name: 'ACCESS_LOG_ENABLED',
    key: 'http.accessLogEnabled',
    description:
      'Write one access log row per HTTP request of this service (`GET /v1/admin/access-logs`), in batches every second off the request path. Probes (`/healthz`, `/readyz`, `/metrics`) are never logged.',
    allowed: 'true or false',
    default: 'true',
    apps: httpApps,
    parse: boolean,
  }),
  define({
    name: 'SHUTDOWN_TIMEOUT_SECONDS',
    key: 'http.shutdownTimeoutMs',
    description: 'On SIGTERM or Ctrl-C, how long open requests may finish before connections are closed.',
    allowed: 'an integer from 0 to 600',
    default: '10',
    apps: httpApps,
    parse: secondsAsMilliseconds(0, 600),
  }),
  define({
    name: 'WEB_SANDBOX_PORT',
    key: 'web.sandboxPort',
    description:
      'TCP port of the web app\'s UI resource sandbox: a second listener, on HOST, that serves only the MCP Apps sandbox proxy page, so the HTML of a UI resource runs on another origin than the app (docs/web.md, "UI resources").',
    allowed: 'an integer from 1 to 65535, not PORT',
    default: '{PORT+1}',
    defaultText: 'PORT + 1 (`8081`)',
    apps: ['platform', 'web-service'],
    parse: integer(1, 65535),
  }),
  define({
    name: 'WEB_SANDBOX_URL',
    key: 'web.sandboxUrl',
    description:
      "External origin of the UI resource sandbox (WEB_SANDBOX_PORT as the browser reaches it). It must differ from PUBLIC_URL's origin; a host of its own (not a subdomain of the app's) keeps the two furthest apart.",
    allowed: 'an http or https origin (no path), not that of PUBLIC_URL',
    default: 'http://localhost:{WEB_SANDBOX_PORT}',
    apps: ['platform', 'web-service'],
    parse: httpOrigin,
  }),
  define({
    name: 'EDITION',
    key: 'edition',
    description: 'Product edition: `saas` checks scopes; `marketplace` accepts any valid token without a scope check.',
    allowed: 'saas or marketplace',
    default: 'saas',
    apps: everyApp,
    parse: oneOf(['saas', 'marketplace']),
  }),
  define({
    name: 'LLM_GATEWAY_ROUTING_FILE',
    key: 'gateway.routingFile',
    description:
      'YAML or JSON file of the model gateway: providers, models with their aliases and deployments, retries, prices (`docs/gateway-routing.schema.json`). Re-read when it changes; without it only the offline `demo` model is served.',
    allowed: 'a file path',
    defaultText: '- (the demo model only)',
    apps: ['llm-gateway', 'platform'],
    parse: filePath,
  }),
  define({
    name: 'LLM_GATEWAY_KEY_PREFIX',
    key: 'gateway.keyPrefix',
    description:
      "Fixed prefix of the gateway's virtual API keys (`<prefix><random>`); admin-service makes keys with it (`/api/v1/admin/api-keys`), so give it the gateway's value.",
    allowed: '1 to 16 letters, digits, `_` or `-`',
    default: 'fed_',
    apps: ['llm-gateway', 'admin-service', 'platform', 'platformctl'],
    parse: (raw: string) => (/^[A-Za-z0-9_-]{1,16}$/.test(raw) ? raw : fail('not 1-16 of A-Z a-z 0-9 _ -')),
  }),
  define({
    name: 'LLM_GATEWAY_SERVICE_NAME',
    key: 'gateway.serviceName',
    description:
      'The `<service>` of the browser opt-in header `x-<service>-allow-browser-access: true` of the model gateway.',
    allowed: 'lower-case letters, digits and hyphens',
    default: 'federation',
    apps: ['llm-gateway', 'platform'],
    parse: (raw: string) => (/^[a-z0-9][a-z0-9-]{0,62}$/.test(raw) ? raw : fail('not lower-case letters, digits, -')),
  }),
  define({
    name: 'LLM_GATEWAY_ALLOWED_NETWORKS',
    key: 'gateway.allowedNetworks',
    description:
      'Networks allowed to call the model gateway, comma-separated (`10.0.0.0/8, 2001:db8::/32, 192.0.2.7`); others get 403. Keys may narrow it further.',
    allowed: 'IPv4 or IPv6 addresses or CIDR ranges, comma-separated',
    defaultText: '- (every network)',
    apps: ['llm-gateway', 'platform'],
    parse: parseNetworks,
  }),
  define({
    name: 'LLM_GATEWAY_LOG_FLUSH_MS',
    key: 'gateway.logFlushMs',
    description:
      'How often, in milliseconds, the model gateway writes its buffered log rows (one multi-row insert), off the path of model calls. Rows reach the database this long after their call; on SIGTERM every row is written first.',
    allowed: 'an integer from 10 to 60000',
    default: '1000',
    apps: ['llm-gateway', 'platform'],
    parse: integer(10, 60_000),
  }),
  define({
    name: 'LLM_GATEWAY_WORKERS',
    key: 'gateway.workers',
    description:
      'How many processes of llm-gateway serve its port (node:cluster: a primary starts them, replaces one that exits, and passes signals on; `/metrics` sums them). One process runs the gateway on one core: where a host gives the gateway several, set their number (compose sets 2; the Kubernetes pod keeps 1 and the autoscaler adds pods). Each worker has its own connections, log writers and tokenizer thread, and takes the memory of one process (about 350 MiB at start, up to 550 MiB serving thousands of calls a second); the primary about 70 MiB.',
    allowed: 'an integer from 1 to 64',
    default: '1',
    apps: ['llm-gateway'],
    parse: integer(1, 64),
  }),
  // log retention (libs/audit retention): applied by admin-service.
  define({
    name: 'AUDIT_LOG_RETENTION_DAYS',
    key: 'logs.auditRetentionDays',
    description:
      'Audit log rows (admin actions) older than this many days are deleted by admin-service (checked hourly, in batches); 0 keeps them for ever.',
    allowed: 'an integer from 0 to 36500',
    default: '365',
    apps: ['admin-service', 'platform'],
    parse: integer(0, 36_500),
  }),
  define({
    name: 'GATEWAY_LOG_RETENTION_DAYS',
    key: 'logs.gatewayRetentionDays',
    description:
      'Model gateway log rows older than this many days are deleted by admin-service (checked hourly, in batches); 0 keeps them for ever.',
    allowed: 'an integer from 0 to 36500',
    default: '90',
    apps: ['admin-service', 'platform'],
    parse: integer(0, 36_500),
  }),
  define({
    name: 'LLM_LOG_RETENTION_DAYS',
    key: 'logs.llmRetentionDays',
    description:
      'LLM log rows (one per model call of the agent runtime) older than this many days are deleted by admin-service (checked hourly, in batches); 0 keeps them for ever.',
    allowed: 'an integer from 0 to 36500',
    default: '90',
    apps: ['admin-service', 'platform'],
    parse: integer(0, 36_500),
  }),
  define({
    name: 'ACCESS_LOG_RETENTION_DAYS',
    key: 'logs.accessRetentionDays',
    description:
      'Access log rows (one per HTTP request of every service) older than this many days are deleted by admin-service (checked hourly, in batches); 0 keeps them for ever.',
    allowed: 'an integer from 0 to 36500',
    default: '30',
    apps: ['admin-service', 'platform'],
    parse: integer(0, 36_500),
  }),
  define({
    name: 'GUARDRAIL_ALERT_RETENTION_DAYS',
    key: 'logs.guardrailRetentionDays',
    description:
      'Guardrail alerts (rules of the content filter that matched a message) older than this many days are deleted by admin-service (checked hourly, in batches); 0 keeps them for ever.',
    allowed: 'an integer from 0 to 36500',
    default: '365',
    apps: ['admin-service', 'platform'],
    parse: integer(0, 36_500),
  }),
  define({
    name: 'GUARDRAIL_RULES_FILE',
    key: 'guardrails.rulesFile',
    description:
      'JSON file of the content filter\'s rules (patterns, blocked terms, PII detectors; docs/admin.md, "Guardrail alerts"), checked at start: a bad rule stops the app and is named. Without it the built-in PII rules record alerts of the agent\'s turns (e-mail address, phone number, payment card number) and nothing is blocked. The model gateway applies the rules of stage `gateway`.',
    allowed: 'a file path',
    defaultText: '- (the built-in PII rules, alert only)',
    apps: ['agent-runtime', 'llm-gateway', 'platform'],
    parse: filePath,
  }),
  define({
    name: 'CHAT_MODEL_NAME',
    key: 'chat.modelName',
    description:
      "The fixed `model` of the chat API (the service's agent model); a chat request naming another is refused with 400. Every stream chunk carries it.",
    allowed: '1 to 100 letters, digits, `.`, `_`, `:` or `-`',
    default: 'federation-agent',
    apps: ['chat-service', 'agent-runtime', 'agent-protocols', 'platform', 'web-service'],
    parse: (raw: string) => (/^[A-Za-z0-9._:-]{1,100}$/.test(raw) ? raw : fail('not 1-100 of A-Z a-z 0-9 . _ : -')),
  }),
  define({
    name: 'CHAT_HEARTBEAT_SECONDS',
    key: 'chat.heartbeatMs',
    description: 'A chat stream that has been silent this long gets a `: heartbeat` comment.',
    allowed: 'an integer from 1 to 300',
    default: '15',
    apps: ['chat-service', 'agent-protocols', 'platform'],
    parse: secondsAsMilliseconds(1, 300),
  }),
  define({
    name: 'CHAT_STREAM_TTL_SECONDS',
    key: 'chat.streamTtlSeconds',
    description:
      "How long a finished turn's chunk log is kept: a stream joined while the turn ran (the POST, or a reconnect with `GET /v1/chat/completions/:conversationId`) is read to its end from it, and A2A `tasks/resubscribe` replays it after `Last-Event-ID`. A chat reconnect after the turn has ended is 404 (nothing in progress); the answer is then in the conversation's messages.",
    allowed: 'an integer from 10 to 86400',
    default: '300',
    apps: ['chat-service', 'agent-runtime', 'agent-protocols', 'platform'],
    parse: integer(10, 86_400),
  }),
  // agent-protocols (libs/protocols): A2A and MCP.
  define({
    name: 'PROTOCOL_BODY_LIMIT_MB',
    key: 'protocols.bodyLimitBytes',
    description:
      'Largest JSON-RPC request body of `POST /api/v1/a2a` and `POST /api/v1/mcp` (files sent inline count, base64-encoded); a larger one is answered 413.',
    allowed: 'an integer from 1 to 512',
    default: '32',
    apps: ['agent-protocols', 'platform'],
    parse: (raw: string) => integer(1, 512)(raw) * 1024 * 1024,
  }),
  define({
    name: 'MCP_FILE_SIZE_LIMIT_MB',
    key: 'protocols.mcpInlineFileBytes',
    description:
      "MCP `get_file_content` returns a deliverable's content inline up to this size (the spec's `fileSizeLimitMB`), a download link above it.",
    allowed: 'a number from 0 to 100 (fractions allowed)',
    default: '5',
    apps: ['agent-protocols', 'platform'],
    parse: (raw: string) => {
      const value = Number(raw);
      return /^[0-9]{1,3}(\.[0-9]{1,6})?$/.test(raw) && value <= 100
        ? Math.floor(value * 1024 * 1024)
        : fail('not a number from 0 to 100');
    },
  }),
  define({
    name: 'CHAT_ARCHIVE_AFTER_DAYS',
    key: 'chat.archiveAfterDays',
    description:
      'Conversations without activity for this many days are moved to the archive (checked hourly); 0 never archives. `platformctl conversations archive ID` archives one at once.',
    allowed: 'an integer from 0 to 36500',
    default: '90',
    apps: ['chat-service', 'platform', 'platformctl'],
    parse: integer(0, 36_500),
  }),
  define({
    name: 'FILES_SWEEP_AGE_SECONDS',
    key: 'files.sweepAgeSeconds',
    description:
      'An upload still unfinished after this many seconds (its row `uploading`), and a blob under `uploads/`, `deliverables/` or `library/` without a row that is this old, are deleted by the sweeps chat-service runs every ten minutes.',
    allowed: 'an integer from 60 to 604800',
    default: '3600',
    apps: ['chat-service', 'platform'],
    parse: integer(60, 604_800),
  }),
  define({
    name: 'AGENT_GATEWAY_URL',
    key: 'agent.gatewayUrl',
    description:
      "Base URL of the model gateway's OpenAI-compatible API, through which the agent calls every model. agent-runtime's default is llm-gateway's service name in compose and Kubernetes: anywhere else, set it to llm-gateway's address (agent-runtime warns at start when its host does not resolve).",
    allowed: 'an http(s) URL',
    // In platform the gateway is served by the same process.
    default: { 'agent-runtime': 'http://llm-gateway:8080/llm/v1', platform: 'http://127.0.0.1:{PORT}/llm/v1' },
    apps: ['agent-runtime', 'platform'],
    parse: httpUrl,
  }),
  define({
    name: 'AGENT_GATEWAY_API_KEY',
    key: 'agent.gatewayApiKey',
    description:
      'A virtual key of the model gateway for the agent (`platformctl apikeys create --name agent-runtime`). Alternatively AGENT_CLIENT_ID and AGENT_CLIENT_SECRET (a client-credentials token). agent-runtime starts without either, but every turn then ends with `model_unavailable`: it warns at start, and `platformctl config check` fails. In platform, when neither is set, a key is created at first start and kept in DATA_DIR.',
    allowed: 'a gateway key',
    apps: ['agent-runtime', 'platform'],
    sensitive: true,
    parse: nonEmpty,
  }),
  define({
    name: 'AGENT_CLIENT_ID',
    key: 'agent.clientId',
    description:
      'Client of the auth service whose client-credentials token the agent shows the model gateway (instead of AGENT_GATEWAY_API_KEY); the gateway serves it only with the `llm:invoke` scope.',
    allowed: 'a client id',
    apps: ['agent-runtime', 'platform'],
    parse: nonEmpty,
  }),
  define({
    name: 'AGENT_CLIENT_SECRET',
    key: 'agent.clientSecret',
    description: 'Secret of AGENT_CLIENT_ID.',
    allowed: 'a client secret',
    apps: ['agent-runtime', 'platform'],
    sensitive: true,
    parse: nonEmpty,
  }),
  define({
    name: 'AGENT_TOKEN_URL',
    key: 'agent.tokenUrl',
    description:
      "Where the agent fetches its AGENT_CLIENT_ID token: auth-service's token endpoint at an in-cluster address in distributed mode (compose and Kubernetes set `http://auth-service:8080/federation/auth/v1/token`), so the call does not go out through the public ingress. The token's issuer is still {auth_url}/realms/federation, whatever address it was fetched from.",
    allowed: 'an http or https URL',
    default: '{AUTH_URL}/federation/auth/v1/token',
    apps: ['agent-runtime', 'platform'],
    parse: httpUrl,
  }),
  define({
    name: 'MEMORY_EMBEDDING_MODEL',
    key: 'memory.embeddingModel',
    description:
      'Gateway model that embeds shared-memory items and queries (`POST /llm/v1/embeddings`). Unset: the shared memory is searched by full-text search only and items are stored without embedding. Items embedded by another model are found by full-text search only until re-imported.',
    allowed: 'an embeddings model name of the gateway',
    apps: ['admin-service', 'agent-runtime', 'platform', 'platformctl'],
    parse: nonEmpty,
  }),
  define({
    name: 'MEMORY_EMBEDDING_DIMENSIONS',
    key: 'memory.embeddingDimensions',
    description:
      "Sent as `dimensions` with every embeddings call of the shared memory (for models that can shorten their vectors); unset: the model's own size.",
    allowed: 'an integer from 1 to 8192',
    apps: ['admin-service', 'agent-runtime', 'platform', 'platformctl'],
    parse: integer(1, 8192),
  }),
  define({
    name: 'MEMORY_GATEWAY_URL',
    key: 'memory.gatewayUrl',
    description:
      "Base URL of the model gateway's OpenAI-compatible API that embeds shared-memory queries and items (used only with MEMORY_EMBEDDING_MODEL).",
    allowed: 'an http(s) URL',
    default: {
      'agent-runtime': '{AGENT_GATEWAY_URL}',
      platform: 'http://127.0.0.1:{PORT}/llm/v1',
      '*': 'http://llm-gateway:8080/llm/v1',
    },
    apps: ['admin-service', 'agent-runtime', 'platform', 'platformctl'],
    parse: httpUrl,
  }),
  define({
    name: 'MEMORY_GATEWAY_API_KEY',
    key: 'memory.gatewayApiKey',
    description:
      "A virtual key of the model gateway for the shared memory's embeddings calls (`platformctl apikeys create --name memory`). agent-runtime and platform fall back to the agent's key (AGENT_GATEWAY_API_KEY, or in platform the key it keeps in DATA_DIR).",
    allowed: 'a gateway key',
    apps: ['admin-service', 'agent-runtime', 'platform', 'platformctl'],
    sensitive: true,
    parse: nonEmpty,
  }),
  define({
    name: 'MEMORY_EMBEDDING_TIMEOUT_MS',
    key: 'memory.embeddingTimeoutMs',
    description:
      'How long a shared-memory query waits for its embedding: past it, `POST /v1/admin/memory/query` answers 504 `upstream_timeout`.',
    allowed: 'an integer from 50 to 120000',
    default: '10000',
    apps: ['admin-service', 'agent-runtime', 'platform', 'platformctl'],
    parse: integer(50, 120_000),
  }),
  define({
    name: 'MEMORY_QUERY_MONTHLY_LIMIT',
    key: 'memory.monthlyQueryLimit',
    description:
      'Shared-memory queries (`POST /v1/admin/memory/query`) one tenant may make per UTC month (tokens without a tenant share one platform bucket); past it, 429 `monthly_quota_exceeded`.',
    allowed: 'an integer from 1 to 1000000000',
    default: '10000',
    apps: ['admin-service', 'platform'],
    parse: integer(1, 1_000_000_000),
  }),
  define({
    name: 'AGENT_MODEL',
    key: 'agent.models.default',
    description: 'Gateway model (name or alias) of `agentLevel: default`.',
    allowed: 'a model name of the gateway',
    default: 'demo',
    apps: ['agent-runtime', 'platform'],
    parse: nonEmpty,
  }),
  define({
    name: 'AGENT_MODEL_HIGH_PERFORMANCE',
    key: 'agent.models.high_performance',
    description: 'Gateway model (name or alias) of `agentLevel: high_performance`.',
    allowed: 'a model name of the gateway',
    default: 'demo',
    apps: ['agent-runtime', 'platform'],
    parse: nonEmpty,
  }),
  define({
    name: 'AGENT_MAX_STEPS',
    key: 'agent.maxSteps',
    description: 'Most model calls of one agent turn (each may run tools); the turn then ends with what it has.',
    allowed: 'an integer from 1 to 100',
    default: '12',
    apps: ['agent-runtime', 'platform'],
    parse: integer(1, 100),
  }),
  define({
    name: 'AGENT_TURN_TIMEOUT_SECONDS',
    key: 'agent.turnTimeoutMs',
    description:
      'Longest an agent turn may run; it then ends unfinished. chat-service also ends a turn no runtime has taken for this long.',
    allowed: 'an integer from 5 to 86400',
    default: '900',
    apps: ['agent-runtime', 'chat-service', 'agent-protocols', 'platform'],
    parse: secondsAsMilliseconds(5, 86_400),
  }),
  define({
    name: 'AGENT_CONCURRENCY',
    key: 'agent.concurrency',
    description: 'Agent turns one runtime instance runs at once.',
    allowed: 'an integer from 1 to 1000',
    default: '20',
    apps: ['agent-runtime', 'platform'],
    parse: integer(1, 1000),
  }),
  define({
    name: 'AGENT_STALL_SECONDS',
    key: 'agent.stallMs',
    description:
      'A runtime that has not renewed its hold on a turn (its queue lock) for this long is taken to be gone, crashed or cut off from Redis: another runtime takes the turn within about 1¼ times this, and ends it unfinished with an error chunk if some of it was shown. A runtime whose renewals went unconfirmed for about half of this (a long pause, Redis slow or out of reach) pauses the writes of the turn until one is confirmed; only once the whole of it passed (or Redis refused a renewal) does it leave the turn to the next. chat-service ends a turn no runtime has reported on for 3 times this. Set the same value in every service.',
    allowed: 'an integer from 2 to 600',
    default: '10',
    apps: ['agent-runtime', 'chat-service', 'agent-protocols', 'platform'],
    parse: secondsAsMilliseconds(2, 600),
  }),
  define({
    name: 'AGENT_DRAIN_SECONDS',
    key: 'agent.drainMs',
    description:
      "On SIGTERM or Ctrl-C, how long a runtime stops taking turns and lets its running ones finish; what still runs then is handed back to the queue (another runtime ends it, unfinished with an error chunk if some of it was shown). A second signal hands them back at once. Keep the orchestrator's grace period (Kubernetes' terminationGracePeriodSeconds, 30 s by default; Docker's stop timeout, 10 s unless `docker stop -t`, `docker run --stop-timeout` or compose's `stop_grace_period` says otherwise) at least 5 s above it: platform must still close its embedded database after it. 0 hands running turns back at once.",
    allowed: 'an integer from 0 to 3600',
    default: { '*': '25', platform: '5' },
    apps: ['agent-runtime', 'platform'],
    parse: secondsAsMilliseconds(0, 3600),
  }),
  define({
    name: 'AGENT_COALESCE_MS',
    key: 'agent.coalesceMs',
    description:
      'Text deltas of the model arriving within this many milliseconds are sent as one stream chunk (order and text unchanged); a piece that comes when no text was sent for this long (the first of an answer, the first after a pause) goes out at once, and the window opens at the next one. 0 sends each as it comes.',
    allowed: 'an integer from 0 to 1000',
    default: '20',
    apps: ['agent-runtime', 'platform'],
    parse: integer(0, 1000),
  }),
  // notifications (libs/identity notifications): approval and rejection e-mails of admin-service, sign-up and
  // password-reset e-mails of auth-service.
  define({
    name: 'SMTP_URL',
    key: 'notify.smtpUrl',
    description:
      'SMTP server of the e-mails to users (approval, withdrawn approval, sign-up confirmation, password reset): `smtp://user:pass@host:587` (STARTTLS when offered) or `smtps://user:pass@host:465`. Unset: the e-mails are logged (recipient and subject), not sent.',
    allowed: 'an smtp:// or smtps:// URL',
    apps: ['admin-service', 'auth-service', 'platform'],
    sensitive: true,
    parse: urlWith(['smtp:', 'smtps:']),
  }),
  define({
    name: 'SMTP_FROM',
    key: 'notify.smtpFrom',
    description: 'Sender of the e-mails to users (`From`); required when SMTP_URL is set.',
    allowed: 'an e-mail address, or `Name <address>`',
    apps: ['admin-service', 'auth-service', 'platform'],
    parse: (raw) =>
      /^([^<>\r\n\0]{0,200}<[^\s@<>]{1,64}@[^\s@<>]{1,253}>|[^\s@<>]{1,64}@[^\s@<>]{1,253})$/.test(raw.trim())
        ? raw.trim()
        : fail('not an e-mail address or `Name <address>`'),
  }),
  define({
    name: 'NOTIFY_LOCALE',
    key: 'notify.locale',
    description:
      "Language of the approval e-mails to users, who have no language of their own yet (the login pages' default is `ja` too); sign-up and password-reset e-mails use the language of the page that asked for them.",
    allowed: 'ja or en',
    default: 'ja',
    apps: ['admin-service', 'auth-service', 'platform'],
    parse: oneOf(['ja', 'en']),
  }),
  define({
    name: 'NOTIFY_ATTEMPTS',
    key: 'notify.attempts',
    description:
      'Tries of one e-mail before it is given up (and logged as lost); a permanent refusal (5xx) is not retried.',
    allowed: 'an integer from 1 to 50',
    default: '10',
    apps: ['admin-service', 'auth-service', 'platform'],
    parse: integer(1, 50),
  }),
  define({
    name: 'NOTIFY_RETRY_DELAY_SECONDS',
    key: 'notify.retryDelayMs',
    description: 'Wait before the first retry of an e-mail; each further retry waits twice as long.',
    allowed: 'an integer from 1 to 3600',
    default: '30',
    apps: ['admin-service', 'auth-service', 'platform'],
    parse: secondsAsMilliseconds(1, 3600),
  }),
  define({
    name: 'TOOLSERVER_SECRET_KEY',
    key: 'toolServers.secretKey',
    description:
      "Encrypts the `Authorization` header values of approved MCP tool servers in the database (AES-256-GCM); agent-runtime, chat-service, agent-protocols, admin-service and platformctl must share it. In `platform` and `platformctl`, leaving it unset uses a key derived from the signing keys' KEY_ENCRYPTION_KEY. Without a key, tool servers without an auth header still work.",
    allowed: '32 random bytes, base64-encoded (e.g. `openssl rand -base64 32`)',
    apps: ['agent-runtime', 'chat-service', 'agent-protocols', 'admin-service', 'platform', 'platformctl'],
    sensitive: true,
    parse: (raw) =>
      Buffer.from(raw, 'base64').length === 32 && /^[A-Za-z0-9+/]{43}=$/.test(raw)
        ? raw
        : fail('not 32 bytes of base64'),
  }),
  define({
    name: 'TOOLSERVER_ALLOW_PRIVATE_ADDRESSES',
    key: 'toolServers.allowPrivateAddresses',
    description:
      'Lets approved MCP tool servers be on loopback, private, link-local and other non-public addresses (127.0.0.0/8, 10.0.0.0/8, 169.254.0.0/16, ::1, fc00::/7, ...). Off, such a URL is refused at `toolservers add`, and every connection is checked on the address it resolves to (DNS rebinding, redirects). Turn it on only for tool servers of your own network.',
    allowed: 'true or false',
    default: 'false',
    apps: ['agent-runtime', 'chat-service', 'agent-protocols', 'admin-service', 'platform', 'platformctl'],
    parse: boolean,
  }),
] as const satisfies readonly VariableDefinition[];

export type VariableName = (typeof variables)[number]['name'];
