import { type Pricing } from '../routing/routing.types';
import { type TokenUsage } from './token-usage';

/** Cache prices default to the input price; reasoning tokens are part of output. Rounded to 1e-8 dollars. */
export function costOf(usage: TokenUsage, pricing: Pricing): number {
  const uncached = Math.max(0, usage.inputTokens - usage.cachedTokens - usage.cacheCreationInputTokens);
  const perMillion =
    uncached * pricing.input +
    usage.cachedTokens * (pricing.cacheRead ?? pricing.input) +
    usage.cacheCreationInputTokens * (pricing.cacheWrite ?? pricing.input) +
    usage.outputTokens * pricing.output;
  return Math.round(perMillion * 100) / 1e8;
}
