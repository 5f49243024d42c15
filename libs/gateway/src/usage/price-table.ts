import { type Pricing } from '../routing/routing.types';

/**
 * List prices in US dollars per million tokens (checked 2026-11). A model's routing `pricing` overrides;
 * a model in neither gets a null cost, never a guessed one.
 */
export const PRICE_TABLE_VERSION = '2026-11-01';

export const priceTable: Readonly<Record<string, Pricing>> = {
  'gpt-5': { input: 1.25, cacheRead: 0.125, output: 10 },
  'gpt-5-mini': { input: 0.25, cacheRead: 0.025, output: 2 },
  'gpt-5-nano': { input: 0.05, cacheRead: 0.005, output: 0.4 },
  'gpt-4.1': { input: 2, cacheRead: 0.5, output: 8 },
  'gpt-4.1-mini': { input: 0.4, cacheRead: 0.1, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, cacheRead: 0.025, output: 0.4 },
  'gpt-4o': { input: 2.5, cacheRead: 1.25, output: 10 },
  'gpt-4o-mini': { input: 0.15, cacheRead: 0.075, output: 0.6 },
  o3: { input: 2, cacheRead: 0.5, output: 8 },
  'o3-mini': { input: 1.1, cacheRead: 0.55, output: 4.4 },
  'o4-mini': { input: 1.1, cacheRead: 0.275, output: 4.4 },
  'text-embedding-3-small': { input: 0.02, output: 0 },
  'text-embedding-3-large': { input: 0.13, output: 0 },
  'claude-opus-4-5': { input: 5, cacheWrite: 6.25, cacheRead: 0.5, output: 25 },
  'claude-opus-4-1': { input: 15, cacheWrite: 18.75, cacheRead: 1.5, output: 75 },
  'claude-opus-4': { input: 15, cacheWrite: 18.75, cacheRead: 1.5, output: 75 },
  'claude-sonnet-4-5': { input: 3, cacheWrite: 3.75, cacheRead: 0.3, output: 15 },
  'claude-sonnet-4': { input: 3, cacheWrite: 3.75, cacheRead: 0.3, output: 15 },
  'claude-3-7-sonnet': { input: 3, cacheWrite: 3.75, cacheRead: 0.3, output: 15 },
  'claude-haiku-4-5': { input: 1, cacheWrite: 1.25, cacheRead: 0.1, output: 5 },
  'claude-3-5-haiku': { input: 0.8, cacheWrite: 1, cacheRead: 0.08, output: 4 },
  demo: { input: 0, output: 0 },
};

const byLength = Object.keys(priceTable).sort((a, b) => b.length - a.length);

/** Exact, else the longest family name followed by `-` (a dated snapshot takes its family's price). */
export function listPrice(upstreamModel: string): Pricing | null {
  const exact = priceTable[upstreamModel];
  if (exact) return exact;
  const family = byLength.find((name) => upstreamModel.startsWith(`${name}-`));
  return family ? (priceTable[family] ?? null) : null;
}
