import { customCleanEnv, makeValidator } from 'envalid';
import { type AppName, type HostedApp } from './app-names';
import { type ParseContext, type VariableDefinition, variables } from './variables';

// Each variable's `key` says where its parsed value lives, its parser gives the field's type, and its
// default decides whether the field is always there. An app sees only the sections of the variables it
// reads; such a section holds every field, from the environment or else the default.

type Definition = (typeof variables)[number];

type SectionOf<Key extends string> = Key extends `${infer Section}.${string}` ? Section : Key;

type SectionsOf<A extends AppName, V extends Definition = Definition> = V extends Definition
  ? A extends V['apps'][number]
    ? SectionOf<V['key']>
    : never
  : never;

type HasDefaultIn<V extends Definition, A extends AppName, D = NonNullable<V['default']>> = [D] extends [never]
  ? false
  : D extends string
    ? true
    : A extends keyof D
      ? true
      : '*' extends keyof D
        ? true
        : false;

type FieldAt<Key extends string, T, Present extends boolean> = Key extends `${infer Head}.${infer Rest}`
  ? { [K in Head]: FieldAt<Rest, T, Present> }
  : Present extends true
    ? { [K in Key]: T }
    : { [K in Key]?: T };

type FieldsOf<A extends AppName, V extends Definition = Definition> = V extends Definition
  ? SectionOf<V['key']> extends SectionsOf<A>
    ? FieldAt<V['key'], ReturnType<V['parse']>, HasDefaultIn<V, A>>
    : never
  : never;

/** Computed by derive(), not read from a variable of their own. */
type DerivedFieldsOf<A extends AppName> =
  'auth' extends SectionsOf<A>
    ? {
        /** {auth_url}/realms/federation */
        auth: { issuer: string };
      }
    : unknown;

type UnionToIntersection<U> = (U extends unknown ? (member: U) => void : never) extends (all: infer I) => void
  ? I
  : never;

type Simplify<T> = T extends string | number | boolean | undefined | readonly unknown[]
  ? T
  : { [K in keyof T]: Simplify<T[K]> };

export type AppConfig<A extends AppName> = A extends AppName
  ? Simplify<{ app: AppName } & UnionToIntersection<FieldsOf<A>> & DerivedFieldsOf<A>>
  : never;

/** `platform` runs every service and owns every section. */
export type ServiceConfig = AppConfig<'platform'>;

/** libs/server reads only its common sections. */
export type HostConfig = AppConfig<HostedApp>;

export type LogLevel = ServiceConfig['log']['level'];
export type Edition = ServiceConfig['edition'];

export interface ConfigProblem {
  variable: string;
  problem: string;
}

export class ConfigError extends Error {
  constructor(
    readonly app: AppName,
    readonly problems: readonly ConfigProblem[],
  ) {
    super(`Invalid configuration for ${app}:\n` + problems.map((p) => `  ${p.variable}: ${p.problem}`).join('\n'));
    this.name = 'ConfigError';
  }
}

export const REALM = 'federation';

type Env = Record<string, string | undefined>;

const table: readonly VariableDefinition[] = variables;

const reads = (definition: VariableDefinition, app: AppName) => definition.apps.includes(app);

const sectionOf = (key: string) => key.split('.')[0];

function sectionsOf(app: AppName): Set<string> {
  return new Set(table.filter((d) => reads(d, app)).map((d) => sectionOf(d.key)));
}

/** Empty strings count as unset, as in most twelve-factor tools (compose files often write `X=`). */
function presentIn(env: Env, definitions: readonly VariableDefinition[]): Record<string, string> {
  const present: Record<string, string> = {};
  for (const d of definitions) {
    const raw = env[d.name];
    if (raw !== undefined && raw !== '') present[d.name] = raw;
  }
  return present;
}

interface Reading {
  definition: VariableDefinition;
  value: unknown;
  /** The environment's text, or the default with `{NAME}` filled in. */
  raw: string;
  source: 'environment' | 'default';
}

/** In table order, so a default may name a variable above it. All problems at once; secrets never echoed. */
function read(app: AppName, env: Env, context: ParseContext, onlySection?: string): Map<string, Reading> {
  const inScope = (d: VariableDefinition) => onlySection === undefined || sectionOf(d.key) === onlySection;
  const ownDefinitions = table.filter((d) => reads(d, app) && inScope(d));
  const present = presentIn(env, ownDefinitions);
  // envalid validates only the environment: defaults, which may name other variables, are filled in below.
  const specs = Object.fromEntries(
    ownDefinitions.map((d) => {
      const validator = makeValidator<unknown>((raw) => d.parse(raw, context));
      const required = d.requiredIn.includes(app);
      return [
        d.name,
        required ? validator({ desc: d.description }) : validator({ desc: d.description, default: undefined }),
      ];
    }),
  );
  const fromEnvironment: Record<string, unknown> = customCleanEnv(present, specs, (cleaned) => cleaned, {
    reporter: ({ errors }) => {
      const problems = ownDefinitions.flatMap((d) => {
        const error = errors[d.name];
        if (!error) return [];
        const raw = present[d.name];
        const reason = raw === undefined ? 'is required but not set' : describe(d, raw, error);
        return [{ variable: d.name, problem: `${reason}; allowed: ${d.allowed}` }];
      });
      if (problems.length > 0) throw new ConfigError(app, problems);
    },
  });

  const owned = sectionsOf(app);
  const readings = new Map<string, Reading>();
  for (const definition of table) {
    if (!owned.has(sectionOf(definition.key)) || !inScope(definition)) continue;
    const raw = present[definition.name];
    if (raw !== undefined) {
      readings.set(definition.name, {
        definition,
        value: fromEnvironment[definition.name],
        raw,
        source: 'environment',
      });
      continue;
    }
    const fallback = definition.defaultFor(app);
    if (fallback === undefined) continue;
    // `{NAME}` is the value of NAME, `{NAME+1}` that number plus one (WEB_SANDBOX_PORT beside PORT).
    const filled = fallback.replace(/\{([A-Z0-9_]+)(?:\+([0-9]+))?\}/g, (_, name: string, offset?: string) => {
      const named = readings.get(name);
      if (!named) throw new Error(`the default of ${definition.name} names ${name}, which has no value above it`);
      return offset === undefined ? String(named.value) : String(Number(named.value) + Number(offset));
    });
    let value: unknown;
    try {
      value = definition.parse(filled, context);
    } catch (error) {
      // A default made from another variable can be out of range (PORT 65535 leaves no PORT+1).
      const reason = error instanceof Error ? error.message : String(error);
      throw new ConfigError(app, [
        {
          variable: definition.name,
          problem: `its default "${filled}" is invalid (${reason}); set it; allowed: ${definition.allowed}`,
        },
      ]);
    }
    readings.set(definition.name, { definition, value, raw: filled, source: 'default' });
  }
  return readings;
}

function setAt(target: Record<string, unknown>, key: string, value: unknown): void {
  const parts = key.split('.');
  let node = target;
  for (const part of parts.slice(0, -1)) {
    const next = node[part];
    if (isRecord(next)) node = next;
    else node = node[part] = {};
  }
  node[parts[parts.length - 1]] = value;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

function derive(config: Record<string, unknown>): void {
  const auth = config.auth;
  if (isRecord(auth)) auth.issuer = `${String(auth.authUrl)}/realms/${REALM}`;
}

/** Rules over several variables, which no one definition can state. */
function checkTogether(config: Record<string, unknown>): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const storage = config.storage;
  if (isRecord(storage)) {
    const s3 = isRecord(storage.s3) ? storage.s3 : {};
    if (storage.kind === 's3' && s3.bucket === undefined) {
      problems.push({ variable: 'S3_BUCKET', problem: 'is required when BLOB_STORE is s3' });
    }
    if ((s3.accessKeyId === undefined) !== (s3.secretAccessKey === undefined)) {
      const [missing, given] =
        s3.accessKeyId === undefined
          ? ['S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY']
          : ['S3_SECRET_ACCESS_KEY', 'S3_ACCESS_KEY_ID'];
      problems.push({ variable: missing, problem: `is required when ${given} is set` });
    }
  }
  const web = config.web;
  const http = config.http;
  if (isRecord(web) && isRecord(http)) {
    if (web.sandboxPort === http.port) {
      problems.push({ variable: 'WEB_SANDBOX_PORT', problem: 'must differ from PORT' });
    }
    // The sandbox isolates UI resources from the app only on another origin.
    if (
      typeof web.sandboxUrl === 'string' &&
      new URL(web.sandboxUrl).origin === new URL(String(http.publicUrl)).origin
    ) {
      problems.push({ variable: 'WEB_SANDBOX_URL', problem: "must be another origin than PUBLIC_URL's" });
    }
  }
  return problems;
}

export function loadConfig<A extends AppName>(app: A, env: Env = process.env, cwd = process.cwd()): AppConfig<A> {
  const config: Record<string, unknown> = { app };
  // A section whose variables are all unset is still there, empty, as its type says.
  for (const d of table) if (reads(d, app) && d.key.includes('.')) config[sectionOf(d.key)] ??= {};
  for (const { definition, value } of read(app, env, { cwd }).values()) setAt(config, definition.key, value);
  const problems = checkTogether(config);
  if (problems.length > 0) throw new ConfigError(app, problems);
  derive(config);
  // Unchecked: built from the same table AppConfig is derived from, which TypeScript cannot follow through a loop.
  return config as AppConfig<A>;
}

export type TracingConfig = ServiceConfig['tracing'];

/** Read alone: tracing starts before the modules it instruments load, before the rest of the configuration. */
export function loadTracingConfig(app: HostedApp, env: Env = process.env, cwd = process.cwd()): TracingConfig {
  const section: Record<string, unknown> = {};
  for (const { definition, value } of read(app, env, { cwd }, 'tracing').values()) {
    setAt(section, definition.key, value);
  }
  return (section.tracing ?? {}) as TracingConfig;
}

function describe(definition: VariableDefinition, raw: string, error: Error): string {
  if (definition.sensitive) return 'has an invalid value (not shown: sensitive)';
  const shown = raw.length > 80 ? `${raw.slice(0, 77)}...` : raw;
  return `"${shown}" is invalid (${error.message.replace(/^Invalid input: /, '')})`;
}

export interface ConfigRow {
  name: string;
  value: string;
  source: 'environment' | 'default' | 'not set';
}

/** For `platformctl config check`: secrets masked. Expects a valid environment. */
export function describeConfig(app: AppName, env: Env = process.env, cwd = process.cwd()): ConfigRow[] {
  const readings = read(app, env, { cwd });
  return table
    .filter((d) => reads(d, app))
    .map((d): ConfigRow => {
      const reading = readings.get(d.name);
      if (!reading) return { name: d.name, value: '(not set)', source: 'not set' };
      const value = reading.source === 'environment' && d.sensitive ? maskSecret(reading.raw) : reading.raw;
      return { name: d.name, value, source: reading.source };
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

export const SERVICE_CONFIG = Symbol.for('fed.config.ServiceConfig');
