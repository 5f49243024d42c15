import { makeValidator } from 'envalid';
import { type AppName, appNames, serviceNames } from './app-names';

// Every environment variable of the platform, in one place. The README's configuration table
// is checked against this list by a test, so the two cannot drift.

export type Requirement = 'required' | 'optional';

export interface VariableDefinition {
  name: string;
  description: string;
  /** What a valid value looks like, shown when a value is refused. */
  allowed: string;
  /** Default per app; `undefined` means no default (required, or optional with derived behaviour). */
  defaultFor(app: AppName): string | undefined;
  /** Shown in the README; may describe a derived default. */
  defaultText: string;
  apps: readonly AppName[];
  /** Apps that refuse to start without it. */
  requiredIn: readonly AppName[];
  sensitive: boolean;
  parse(raw: string): string | number;
}

const httpApps: readonly AppName[] = [...serviceNames, 'platform'];
const everyApp = appNames;

const fail = (message: string): never => {
  throw new Error(message);
};

const integer = (min: number, max: number) => (raw: string) => {
  if (!/^-?[0-9]+$/.test(raw.trim())) fail(`"${raw}" is not an integer`);
  const value = Number(raw);
  if (value < min || value > max) fail(`${value} is outside ${min}-${max}`);
  return value;
};

const oneOf =
  <T extends string>(choices: readonly T[]) =>
  (raw: string): T =>
    (choices as readonly string[]).includes(raw) ? (raw as T) : fail(`"${raw}" is not one of ${choices.join(', ')}`);

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

const nonEmpty = (raw: string) => (raw.trim().length > 0 ? raw : fail('empty'));

function define(
  definition: Omit<VariableDefinition, 'defaultFor' | 'requiredIn' | 'sensitive' | 'defaultText'> & {
    default?: string | Partial<Record<AppName | '*', string>>;
    defaultText?: string;
    requiredIn?: readonly AppName[];
    sensitive?: boolean;
  },
): VariableDefinition {
  const defaults = definition.default;
  const defaultFor = (app: AppName) =>
    typeof defaults === 'string' ? defaults : defaults === undefined ? undefined : (defaults[app] ?? defaults['*']);
  let defaultText = definition.defaultText;
  if (defaultText === undefined) {
    if (typeof defaults === 'string') defaultText = `\`${defaults}\``;
    else if (defaults === undefined) defaultText = '-';
    else
      defaultText = Object.entries(defaults)
        .map(([app, value]) => (app === '*' ? `\`${value}\`` : `\`${value}\` (${app})`))
        .join(', ');
  }
  return {
    ...definition,
    defaultFor,
    defaultText,
    requiredIn: definition.requiredIn ?? [],
    sensitive: definition.sensitive ?? false,
  };
}

export const variables = [
  define({
    name: 'HOST',
    description: 'Interface the HTTP server listens on.',
    allowed: 'an IP address or host name',
    default: { '*': '0.0.0.0', platform: '127.0.0.1' },
    apps: httpApps,
    parse: nonEmpty,
  }),
  define({
    name: 'PORT',
    description: 'TCP port of the HTTP server.',
    allowed: 'an integer from 1 to 65535',
    default: '8080',
    apps: httpApps,
    parse: integer(1, 65535),
  }),
  define({
    name: 'PUBLIC_URL',
    description: 'External base address of the API host ({base_url}), used in links and printed URLs.',
    allowed: 'an http or https URL',
    defaultText: '`http://localhost:{PORT}`',
    apps: [...httpApps, 'platformctl'],
    parse: httpUrl,
  }),
  define({
    name: 'AUTH_URL',
    description:
      'External base address of the authentication host ({auth_url}); the issuer is {auth_url}/realms/federation.',
    allowed: 'an http or https URL',
    defaultText: 'PUBLIC_URL',
    apps: httpApps,
    parse: httpUrl,
  }),
  define({
    name: 'AUTH_JWKS_URL',
    description:
      'Where services fetch the signing keys that verify access tokens (an in-cluster address in distributed mode).',
    allowed: 'an http or https URL',
    defaultText: '`{AUTH_URL}/federation/auth/v1/jwks`',
    apps: httpApps,
    parse: httpUrl,
  }),
  define({
    name: 'AUTH_CLOCK_SKEW_SECONDS',
    description: 'Clock difference tolerated when checking `exp`, `nbf` and `iat` of tokens.',
    allowed: 'an integer from 0 to 300',
    default: '10',
    apps: httpApps,
    parse: integer(0, 300),
  }),
  define({
    name: 'DATABASE_URL',
    description:
      'PostgreSQL connection URL. In `platform` and `platformctl`, leaving it unset runs the embedded PostgreSQL (PGlite) under DATA_DIR.',
    allowed: 'a postgres:// or postgresql:// URL',
    apps: everyApp,
    requiredIn: serviceNames,
    sensitive: true,
    parse: urlWith(['postgres:', 'postgresql:']),
  }),
  define({
    name: 'DATABASE_POOL_SIZE',
    description: 'Most PostgreSQL connections one process opens.',
    allowed: 'an integer from 1 to 200',
    default: '10',
    apps: everyApp,
    parse: integer(1, 200),
  }),
  define({
    name: 'REDIS_URL',
    description:
      'Redis URL for the queue, run streams and signals. In `platform`, leaving it unset uses the in-process bus.',
    allowed: 'a redis:// or rediss:// URL',
    apps: everyApp,
    requiredIn: serviceNames,
    sensitive: true,
    parse: urlWith(['redis:', 'rediss:']),
  }),
  define({
    name: 'REDIS_KEY_PREFIX',
    description: 'Prefix of every Redis key and channel, so several installations can share one Redis.',
    allowed: '1-32 characters of letters, digits, `:`, `_` or `-`',
    default: 'fed:',
    apps: everyApp,
    parse: (raw) => (/^[A-Za-z0-9:_-]{1,32}$/.test(raw) ? raw : fail(`"${raw}" has other characters or length`)),
  }),
  define({
    name: 'DATA_DIR',
    description: 'Directory of the embedded PostgreSQL and other local state in all-in-one mode.',
    allowed: 'a directory path',
    default: './.data',
    apps: ['platform', 'platformctl'],
    parse: nonEmpty,
  }),
  define({
    name: 'KEY_ENCRYPTION_KEY',
    description:
      'Encrypts the signing keys stored in the database (AES-256-GCM). In `platform` and `platformctl`, leaving it unset uses a key generated once and kept in DATA_DIR/key-encryption-key.',
    allowed: '32 random bytes, base64-encoded (e.g. `openssl rand -base64 32`)',
    apps: ['auth-service', 'platform', 'platformctl'],
    requiredIn: ['auth-service'],
    sensitive: true,
    parse: (raw) =>
      Buffer.from(raw, 'base64').length === 32 && /^[A-Za-z0-9+/]{43}=$/.test(raw)
        ? raw
        : fail('not 32 bytes of base64'),
  }),
  define({
    name: 'ACCESS_TOKEN_TTL_SECONDS',
    description:
      'Lifetime of access and ID tokens (`expires_in`); a retired signing key stays published this long after its last token.',
    allowed: 'an integer from 60 to 86400',
    default: '300',
    apps: ['auth-service', 'platform', 'platformctl'],
    parse: integer(60, 86400),
  }),
  define({
    name: 'REFRESH_TOKEN_TTL_SECONDS',
    description:
      'Idle lifetime of a refresh token (`refresh_expires_in`): each refresh issues a new one for this long, within the session maximum.',
    allowed: 'an integer from 300 to 2592000',
    default: '1800',
    apps: ['auth-service', 'platform'],
    parse: integer(300, 2_592_000),
  }),
  define({
    name: 'SESSION_MAX_SECONDS',
    description:
      'Longest a login lasts: the browser session and its refresh-token family end this long after the user authenticated.',
    allowed: 'an integer from 300 to 31536000',
    default: '36000',
    apps: ['auth-service', 'platform'],
    parse: integer(300, 31_536_000),
  }),
  define({
    name: 'SERVICE_ACCOUNT_DOMAIN',
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
    description:
      'A realm file (docs/realm.schema.json) imported at start: tenants, clients and users are created or updated, all or nothing; a bad file stops the start.',
    allowed: 'a path to a JSON file',
    apps: ['auth-service', 'platform'],
    parse: nonEmpty,
  }),
  define({
    name: 'LOG_LEVEL',
    description: 'Least severe level written to the JSON log.',
    allowed: 'fatal, error, warn, info, debug, trace or silent',
    default: 'info',
    apps: everyApp,
    parse: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const),
  }),
  define({
    name: 'TRUST_PROXY_HOPS',
    description:
      "How many reverse proxies (ingress, load balancer) stand in front and append to `X-Forwarded-For`: the caller's address, which brute-force protection counts by, is taken that many entries from the right. 0: the TCP peer.",
    allowed: 'an integer from 0 to 5',
    default: '0',
    apps: httpApps,
    parse: integer(0, 5),
  }),
  define({
    name: 'SHUTDOWN_TIMEOUT_SECONDS',
    description: 'On SIGTERM or Ctrl-C, how long open requests may finish before connections are closed.',
    allowed: 'an integer from 0 to 600',
    default: '10',
    apps: httpApps,
    parse: integer(0, 600),
  }),
  define({
    name: 'EDITION',
    description: 'Product edition: `saas` checks scopes; `marketplace` accepts any valid token without a scope check.',
    allowed: 'saas or marketplace',
    default: 'saas',
    apps: everyApp,
    parse: oneOf(['saas', 'marketplace'] as const),
  }),
] as const satisfies readonly VariableDefinition[];

export type VariableName = (typeof variables)[number]['name'];

/** envalid validators built from the definitions, so envalid reports and we explain. */
export function validatorFor(definition: VariableDefinition, app: AppName) {
  const fallback = definition.defaultFor(app);
  const required = definition.requiredIn.includes(app);
  const validator = makeValidator<string | number>((raw: string) => definition.parse(raw));
  if (required) return validator({ desc: definition.description });
  return validator({
    desc: definition.description,
    default: fallback === undefined ? undefined : definition.parse(fallback),
  });
}
