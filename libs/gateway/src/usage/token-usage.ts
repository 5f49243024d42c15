import { type AnthropicUsage, type ChatUsage } from '../wire';

/**
 * Normalized so every token is counted once: `inputTokens` is all input, cached or not (Anthropic's
 * `input_tokens` plus both cache counts); `cachedTokens` and `cacheCreationInputTokens` are parts of it;
 * `reasoningTokens` is part of `outputTokens`.
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

export function openAiUsageOf(usage: TokenUsage): ChatUsage {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: usage.cachedTokens },
    completion_tokens_details: { reasoning_tokens: usage.reasoningTokens },
  };
}

/** Uncached input apart, as Anthropic reports it. */
export function anthropicUsageOf(usage: TokenUsage): AnthropicUsage {
  return {
    input_tokens: Math.max(0, usage.inputTokens - usage.cachedTokens - usage.cacheCreationInputTokens),
    output_tokens: usage.outputTokens,
    cache_creation_input_tokens: usage.cacheCreationInputTokens,
    cache_read_input_tokens: usage.cachedTokens,
  };
}
