/** The routing file (`docs/gateway-routing.schema.json`). */
export interface RoutingFile {
  providers?: ProviderSettings[];
  models?: ModelSettings[];
  retries?: RetrySettings;
  /** Sent to a messages-family provider when a chat-completions request gives no `max_tokens`. */
  defaultMaxTokens?: number;
}

export type ProviderType = 'openai' | 'azure-openai' | 'anthropic' | 'demo';

export interface ProviderSettings {
  name: string;
  type: ProviderType;
  /** openai: up to and including `/v1`; azure-openai: the resource (`https://x.openai.azure.com`); anthropic: without `/v1`. */
  baseUrl?: string;
  /** Name of the environment variable that holds the provider's key (preferred to `apiKey`). */
  apiKeyEnv?: string;
  apiKey?: string;
  /** azure-openai: `api-version` query parameter. */
  apiVersion?: string;
  headers?: Record<string, string>;
  /** Default: true for Azure OpenAI and https://api.openai.com, false elsewhere. */
  responses?: boolean;
  /** Default true for openai and azure-openai. */
  embeddings?: boolean;
  /** Carries the output limit in chat-completions requests translated from the messages family. */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  /** Most calls in flight at once, streams included for their whole length (default: no cap). */
  connections?: number;
  /** With `connections`: wait for a free connection before failing as busy (default 30). */
  queueTimeoutSeconds?: number;
  /** For the answer's first byte, and between two bytes of it (default 600). */
  timeoutSeconds?: number;
}

export interface ModelSettings {
  name: string;
  aliases?: string[];
  tier?: string;
  /** The next one when the previous fails with 429, 5xx or a connection error before answering. */
  deployments: DeploymentSettings[];
  /** USD per million tokens; overrides the repository's price table. */
  pricing?: Pricing;
}

export interface DeploymentSettings {
  provider: string;
  model: string;
  /** azure-openai: the deployment name; elsewhere a label for the log (default: provider/model). */
  deployment?: string;
}

export interface Pricing {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
}

export interface RetrySettings {
  /** Attempts per deployment (default 2). */
  attempts?: number;
  /** Doubled after each failure, with jitter (default 200). */
  initialBackoffMs?: number;
  /** Also caps the honoured `retry-after` (default 4000). */
  maxBackoffMs?: number;
}
