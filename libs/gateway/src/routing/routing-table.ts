import { environmentSecret } from '@fed/config';
import {
  type DeploymentSettings,
  type Pricing,
  type ProviderSettings,
  type ProviderType,
  type RoutingFile,
} from './routing.types';

/** `demo` answers in the chat-completions family, in process. */
export type ProviderFamily = 'chat' | 'messages' | 'demo';

export interface Provider {
  readonly name: string;
  readonly type: ProviderType;
  readonly family: ProviderFamily;
  /** undici pools are per origin. */
  readonly origin: string;
  /** No trailing slash (`/v1` for OpenAI). */
  readonly basePath: string;
  readonly apiKey: string | undefined;
  readonly apiVersion: string | undefined;
  readonly headers: Readonly<Record<string, string>>;
  readonly responses: boolean;
  readonly embeddings: boolean;
  readonly maxTokensField: 'max_tokens' | 'max_completion_tokens';
  /** A stream holds its connection to its end; null: no cap. */
  readonly connections: number | null;
  /** With a cap: longest wait for a free connection before the call fails as busy. */
  readonly queueTimeoutMs: number;
  readonly timeoutMs: number;
}

export interface Deployment {
  readonly provider: Provider;
  /** `resolvedModel` in the log. */
  readonly upstreamModel: string;
  /** `deployment` in the log; for Azure OpenAI, the deployment in the URL. */
  readonly name: string;
}

export interface RoutedModel {
  readonly name: string;
  readonly aliases: readonly string[];
  readonly tier: string | null;
  readonly deployments: readonly Deployment[];
  readonly pricing: Pricing | null;
}

export interface RetryPolicy {
  readonly attempts: number;
  readonly initialBackoffMs: number;
  readonly maxBackoffMs: number;
}

export class RoutingError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid routing: ${problems.join('; ')}`);
    this.name = 'RoutingError';
  }
}

export const DEMO_MODEL = 'demo';

const OPENAI_ORIGIN = 'https://api.openai.com';

const DEFAULT_BASE_URL: Partial<Record<ProviderType, string>> = {
  openai: `${OPENAI_ORIGIN}/v1`,
  anthropic: 'https://api.anthropic.com',
};

/** Immutable once built. */
export class RoutingTable {
  private readonly byName = new Map<string, RoutedModel>();

  constructor(
    readonly models: readonly RoutedModel[],
    readonly retries: RetryPolicy,
    readonly defaultMaxTokens: number,
  ) {
    for (const model of models) {
      this.byName.set(model.name, model);
      for (const alias of model.aliases) this.byName.set(alias, model);
    }
  }

  resolve(name: string): RoutedModel | undefined {
    return this.byName.get(name);
  }
}

/** Every problem is reported at once. */
export function buildRoutingTable(
  file: RoutingFile,
  /** The process's environment when absent. */
  env?: Record<string, string | undefined>,
): RoutingTable {
  const problems: string[] = [];
  const providers = new Map<string, Provider>();
  const demo = providerOf({ name: 'demo', type: 'demo' }, env, problems);
  providers.set(demo.name, demo);
  for (const settings of file.providers ?? []) {
    if (providers.has(settings.name)) {
      problems.push(
        `provider ${settings.name} is defined twice${settings.name === 'demo' ? ' (demo is built in)' : ''}`,
      );
      continue;
    }
    providers.set(settings.name, providerOf(settings, env, problems));
  }

  const models: RoutedModel[] = [];
  const taken = new Set<string>();
  const claim = (name: string, what: string) => {
    if (taken.has(name)) problems.push(`${what} ${name} is used twice (names and aliases must be unique)`);
    taken.add(name);
  };
  const settingsOfModels = [...(file.models ?? [])];
  if (!settingsOfModels.some((m) => m.name === DEMO_MODEL || m.aliases?.includes(DEMO_MODEL))) {
    settingsOfModels.push({ name: DEMO_MODEL, tier: 'demo', deployments: [{ provider: 'demo', model: 'demo' }] });
  }
  for (const settings of settingsOfModels) {
    claim(settings.name, 'model');
    for (const alias of settings.aliases ?? []) claim(alias, 'alias');
    const deployments: Deployment[] = [];
    for (const deployment of settings.deployments) {
      const provider = providers.get(deployment.provider);
      if (!provider) {
        problems.push(`model ${settings.name}: no provider named ${deployment.provider}`);
        continue;
      }
      deployments.push(deploymentOf(settings.name, provider, deployment, problems));
    }
    models.push(
      Object.freeze({
        name: settings.name,
        aliases: Object.freeze([...(settings.aliases ?? [])]),
        tier: settings.tier ?? null,
        deployments: Object.freeze(deployments),
        pricing: settings.pricing ?? null,
      }),
    );
  }
  if (problems.length > 0) throw new RoutingError(problems);
  const retries = file.retries ?? {};
  return new RoutingTable(
    models,
    Object.freeze({
      attempts: retries.attempts ?? 2,
      initialBackoffMs: retries.initialBackoffMs ?? 200,
      maxBackoffMs: retries.maxBackoffMs ?? 4000,
    }),
    file.defaultMaxTokens ?? 4096,
  );
}

function providerOf(
  settings: ProviderSettings,
  env: Record<string, string | undefined> | undefined,
  problems: string[],
): Provider {
  const family: ProviderFamily =
    settings.type === 'anthropic' ? 'messages' : settings.type === 'demo' ? 'demo' : 'chat';
  const baseUrl = settings.baseUrl ?? DEFAULT_BASE_URL[settings.type];
  let origin = '';
  let basePath = '';
  if (settings.type !== 'demo') {
    if (!baseUrl) problems.push(`provider ${settings.name}: baseUrl is required for ${settings.type}`);
    else if (!URL.canParse(baseUrl)) problems.push(`provider ${settings.name}: baseUrl is not a URL`);
    else {
      const url = new URL(baseUrl);
      if (url.search || url.hash || url.username || url.password)
        problems.push(`provider ${settings.name}: baseUrl must not carry a query, fragment or credentials`);
      origin = url.origin;
      basePath = url.pathname.replace(/\/+$/, '');
    }
  }
  if (settings.type === 'azure-openai' && !settings.apiVersion)
    problems.push(`provider ${settings.name}: apiVersion is required for azure-openai`);
  let apiKey = settings.apiKey;
  if (settings.apiKeyEnv) {
    apiKey = environmentSecret(settings.apiKeyEnv, env);
    if (apiKey === undefined)
      problems.push(`provider ${settings.name}: environment variable ${settings.apiKeyEnv} is not set`);
  }
  for (const header of Object.keys(settings.headers ?? {})) {
    if (/^(host|content-length|transfer-encoding|connection)$/i.test(header))
      problems.push(`provider ${settings.name}: header ${header} cannot be set`);
  }
  return Object.freeze({
    name: settings.name,
    type: settings.type,
    family,
    origin,
    basePath,
    apiKey,
    apiVersion: settings.apiVersion,
    headers: Object.freeze(
      Object.fromEntries(Object.entries(settings.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v])),
    ),
    responses: settings.responses ?? servesResponsesApi(settings.type, origin),
    embeddings:
      settings.embeddings ??
      (settings.type === 'openai' || settings.type === 'azure-openai' || settings.type === 'demo'),
    maxTokensField: settings.maxTokensField ?? 'max_tokens',
    // No cap by default: streams last minutes, and a fixed pool would queue every other call behind them.
    connections: settings.connections ?? null,
    queueTimeoutMs: (settings.queueTimeoutSeconds ?? 30) * 1000,
    timeoutMs: (settings.timeoutSeconds ?? 600) * 1000,
  });
}

/**
 * Only OpenAI's own API and Azure OpenAI have `/responses`; assuming it elsewhere (vLLM, Ollama...) would
 * turn the spec's 501 into the upstream's 404. Others opt in with `responses: true`.
 */
function servesResponsesApi(type: ProviderType, origin: string): boolean {
  return type === 'azure-openai' || (type === 'openai' && origin === OPENAI_ORIGIN);
}

function deploymentOf(model: string, provider: Provider, settings: DeploymentSettings, problems: string[]): Deployment {
  if (provider.type === 'azure-openai' && !settings.deployment)
    problems.push(`model ${model}: a deployment name is required for the azure-openai provider ${provider.name}`);
  return Object.freeze({
    provider,
    upstreamModel: settings.model,
    name: settings.deployment ?? `${provider.name}/${settings.model}`,
  });
}
