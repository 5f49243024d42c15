import { type GatewayUsageDimension } from './gateway-usage.repository';

export const gatewayUsageDimensions: readonly GatewayUsageDimension[] = ['model', 'key', 'user'];
/** A year and a day, so that a leap year's whole year fits. */
export const MAX_USAGE_DAYS = 366;
/** Without `from`: the 30 days ending with `to`. */
export const DEFAULT_USAGE_DAYS = 30;
