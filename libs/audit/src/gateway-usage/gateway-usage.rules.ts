import { type GatewayUsageDimension } from './gateway-usage.repository';

export const gatewayUsageDimensions: readonly GatewayUsageDimension[] = ['model', 'key', 'user'];
/** A year and a day, so that a leap year's whole year fits. */
export const MAX_USAGE_DAYS = 366;
/** Without `from`: the 30 days ending with `to`. */
export const DEFAULT_USAGE_DAYS = 30;

/** Costs are summed exactly, in units of 10^-8 USD (the gateway log's scale). */
const COST_SCALE = 100_000_000n;

/** A numeric's text (at most 8 decimals, as the log's costs) in units of 10^-8 USD. */
export function costUnits(text: string): bigint {
  const negative = text.startsWith('-');
  const [whole = '0', fraction = ''] = (negative ? text.slice(1) : text).split('.');
  const units = BigInt(whole) * COST_SCALE + BigInt(fraction.padEnd(8, '0').slice(0, 8));
  return negative ? -units : units;
}

/** Units of 10^-8 USD as a decimal with 8 places, as the gateway log writes costs. */
export function costText(units: bigint): string {
  const size = units < 0n ? -units : units;
  return `${units < 0n ? '-' : ''}${size / COST_SCALE}.${(size % COST_SCALE).toString().padStart(8, '0')}`;
}
