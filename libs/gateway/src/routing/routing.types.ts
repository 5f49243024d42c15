/** The routing file (`docs/gateway-routing.schema.json`), as written by an operator. */
export interface RoutingFile {
  providers?: ProviderSettings[];
  models?: ModelSettings[];
  retries?: RetrySettings;
  /** `max_tokens` sent to a messages-family provider when a chat-completions request gives none. */
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
  /**
   * Whether `/responses` exists there. Default: true for Azure OpenAI and for OpenAI's own API
   * (https://api.openai.com), false for any other server, which may turn it on here.
   */
  responses?: boolean;
  /** Whether `/embeddings` exists there (default true for openai and azure-openai). */
  embeddings?: boolean;
  /** Field that carries the output limit in chat-completions requests translated from the messages family. */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  /**
   * Most calls in flight to the provider at once, streams included for their whole length (default: no
   * cap; undici opens connections as calls need them and closes idle ones after 30 s).
   */
  connections?: number;
  /** With `connections`: how long a call waits for a free connection before it fails as busy (default 30). */
  queueTimeoutSeconds?: number;
  /** Longest wait for the answer's first byte, and between two bytes of it (default 600). */
  timeoutSeconds?: number;
}

export interface ModelSettings {
  /** The name clients send in `model`. */
  name: string;
  aliases?: string[];
  tier?: string;
  /** Tried in order: the next one when the previous fails with 429, 5xx or a connection error before answering. */
  deployments: DeploymentSettings[];
  /** USD per million tokens; overrides the price table in the repository. */
  pricing?: Pricing;
}

export interface DeploymentSettings {
  provider: string;
  /** The provider's model name. */
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
  /** First pause, doubled after each failure, with jitter (default 200). */
  initialBackoffMs?: number;
  /** Longest pause, also the most of a provider's `retry-after` that is honoured (default 4000). */
  maxBackoffMs?: number;
}
