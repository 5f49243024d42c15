import { type Pricing } from '../routing/routing.types';
import { type TokenUsage } from './token-usage';

/**
 * Cost in US dollars of one call, from normalized usage: uncached input at the input price,
 * cache reads and cache writes at theirs (the input price when the table has none), output at the
 * output price (reasoning tokens are part of output). Rounded to 1e-8 dollars.
 */
export function costOf(usage: TokenUsage, pricing: Pricing): number {
  const uncached = Math.max(0, usage.inputTokens - usage.cachedTokens - usage.cacheCreationInputTokens);
  const perMillion =
    uncached * pricing.input +
    usage.cachedTokens * (pricing.cacheRead ?? pricing.input) +
    usage.cacheCreationInputTokens * (pricing.cacheWrite ?? pricing.input) +
    usage.outputTokens * pricing.output;
  return Math.round(perMillion * 100) / 1e8;
}
