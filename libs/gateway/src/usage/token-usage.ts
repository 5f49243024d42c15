import { type AnthropicUsage, type ChatUsage } from '../wire';

/**
 * Token counts of one model call, normalized across the two families so that every token is
 * counted once:
 * - `inputTokens` is every input token the provider processed, cached or not (OpenAI's
 *   `prompt_tokens`; Anthropic's `input_tokens + cache_read_input_tokens + cache_creation_input_tokens`);
 * - `cachedTokens` (read from the cache) and `cacheCreationInputTokens` (written to it) are parts of
 *   `inputTokens`, never added to it again;
 * - `reasoningTokens` is the part of `outputTokens` spent on reasoning.
 */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
  cacheCreationInputTokens: number;
  reasoningTokens: number;
}

export const ZERO_USAGE: Readonly<TokenUsage> = Object.freeze({
  inputTokens: 0,
  outputTokens: 0,
  cachedTokens: 0,
  cacheCreationInputTokens: 0,
  reasoningTokens: 0,
});

const count = (value: unknown): number =>
  typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;

export function usageFromOpenAi(usage: ChatUsage | null | undefined): TokenUsage {
  return {
    inputTokens: count(usage?.prompt_tokens),
    outputTokens: count(usage?.completion_tokens),
    cachedTokens: count(usage?.prompt_tokens_details?.cached_tokens),
    cacheCreationInputTokens: 0,
    reasoningTokens: count(usage?.completion_tokens_details?.reasoning_tokens),
  };
}

export function usageFromAnthropic(usage: Partial<AnthropicUsage> | null | undefined): TokenUsage {
  const cachedTokens = count(usage?.cache_read_input_tokens);
  const cacheCreationInputTokens = count(usage?.cache_creation_input_tokens);
  return {
    inputTokens: count(usage?.input_tokens) + cachedTokens + cacheCreationInputTokens,
    outputTokens: count(usage?.output_tokens),
    cachedTokens,
    cacheCreationInputTokens,
    reasoningTokens: 0,
  };
}

/** The chat-completions family's usage object for normalized counts. */
export function openAiUsageOf(usage: TokenUsage): ChatUsage {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: usage.cachedTokens },
    completion_tokens_details: { reasoning_tokens: usage.reasoningTokens },
  };
}

/** The messages family's usage object for normalized counts (uncached input apart, as Anthropic reports it). */
export function anthropicUsageOf(usage: TokenUsage): AnthropicUsage {
  return {
    input_tokens: Math.max(0, usage.inputTokens - usage.cachedTokens - usage.cacheCreationInputTokens),
    output_tokens: usage.outputTokens,
    cache_creation_input_tokens: usage.cacheCreationInputTokens,
    cache_read_input_tokens: usage.cachedTokens,
  };
}
