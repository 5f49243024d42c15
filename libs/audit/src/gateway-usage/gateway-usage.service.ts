import { type AccessTokenPrincipal } from '@fed/auth';
import { PLATFORM_SCOPE } from '@fed/contracts';
import { Injectable } from '@nestjs/common';
import { type GatewayUsageQuery } from './gateway-usage.dto';
import { GatewayUsageError } from './gateway-usage.errors';
import {
  type GatewayUsageDayRow,
  type GatewayUsageDimension,
  GatewayUsageRepository,
} from './gateway-usage.repository';
import { DEFAULT_USAGE_DAYS, MAX_USAGE_DAYS, costUnits } from './gateway-usage.rules';

const DAY_MS = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const msOf = (day: string) => Date.parse(`${day}T00:00:00.000Z`);

/** What a set of log rows adds up to; the cost exactly, in units of 10^-8 USD (the log's scale). */
export interface GatewayUsageSums {
  requests: number;
  errors: number;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  cachedTokens: number;
  costUnits: bigint;
}

export interface GatewayUsageReport {
  from: string;
  to: string;
  groupBy: GatewayUsageDimension;
  /** Whose usage was read; null: every tenant's and that of no tenant. */
  tenantId: string | null;
  /** By day, then group (code point order, none last). */
  days: (GatewayUsageSums & { day: string; group: string | null })[];
  groups: (GatewayUsageSums & { group: string | null })[];
  totals: GatewayUsageSums;
}

const zero = (): GatewayUsageSums => ({
  requests: 0,
  errors: 0,
  inputTokens: 0,
  outputTokens: 0,
  totalTokens: 0,
  cachedTokens: 0,
  costUnits: 0n,
});

function sumsOf(row: GatewayUsageDayRow): GatewayUsageSums {
  return {
    requests: Number(row.requests),
    errors: Number(row.errors),
    inputTokens: Number(row.inputTokens),
    outputTokens: Number(row.outputTokens),
    totalTokens: Number(row.totalTokens),
    cachedTokens: Number(row.cachedTokens),
    costUnits: costUnits(row.costUsd),
  };
}

function add(into: GatewayUsageSums, sums: GatewayUsageSums): void {
  into.requests += sums.requests;
  into.errors += sums.errors;
  into.inputTokens += sums.inputTokens;
  into.outputTokens += sums.outputTokens;
  into.totalTokens += sums.totalTokens;
  into.cachedTokens += sums.cachedTokens;
  into.costUnits += sums.costUnits;
}

// Code points, not the database's collation: the same order on every install.
const byGroup = (a: string | null, b: string | null) =>
  a === b ? 0 : a === null ? 1 : b === null ? -1 : a < b ? -1 : 1;

/**
 * `platform:manage`, or a token of no tenant (the operator's own integration), reads every tenant's usage; any
 * other reader (`logs:read` of a tenant) its own tenant's only.
 */
export function usageTenantOf(principal: Pick<AccessTokenPrincipal, 'scopes' | 'tenant'>): string | undefined {
  if (principal.scopes.has(PLATFORM_SCOPE)) return undefined;
  return principal.tenant?.id;
}

@Injectable()
export class GatewayUsageService {
  now: () => number = Date.now;

  constructor(private readonly repository: GatewayUsageRepository) {}

  async read(
    principal: Pick<AccessTokenPrincipal, 'scopes' | 'tenant'>,
    query: GatewayUsageQuery,
  ): Promise<GatewayUsageReport> {
    const to = query.to ?? dayOf(this.now());
    const from = query.from ?? dayOf(msOf(to) - (DEFAULT_USAGE_DAYS - 1) * DAY_MS);
    if (from > to) throw new GatewayUsageError('invalid_range', 'from must not be after to');
    if ((msOf(to) - msOf(from)) / DAY_MS + 1 > MAX_USAGE_DAYS)
      throw new GatewayUsageError('range_too_long', `the range is at most ${MAX_USAGE_DAYS} days`);
    const own = usageTenantOf(principal);
    const asked = query.tenantId?.toLowerCase();
    if (own !== undefined && asked !== undefined && asked !== own)
      throw new GatewayUsageError('other_tenant', "only platform:manage reads another tenant's usage");
    const tenantId = own ?? asked;
    const rows = await this.repository.days(
      {
        from,
        to,
        ...(tenantId !== undefined ? { tenantId } : {}),
        ...(query.model !== undefined ? { model: query.model } : {}),
        ...(query.keyId !== undefined ? { keyId: query.keyId.toLowerCase() } : {}),
        ...(query.user !== undefined ? { user: query.user } : {}),
      },
      query.groupBy,
    );
    // The groups and the totals from the days (a few hundred rows), not from a second pass over the rollup.
    const days = rows
      .map((row) => ({ day: row.day, group: row.group, ...sumsOf(row) }))
      .sort((a, b) => (a.day === b.day ? byGroup(a.group, b.group) : a.day < b.day ? -1 : 1));
    const groups = new Map<string | null, GatewayUsageSums & { group: string | null }>();
    const totals = zero();
    for (const day of days) {
      const { day: _day, group, ...sums } = day;
      let summed = groups.get(group);
      if (!summed) groups.set(group, (summed = { group, ...zero() }));
      add(summed, sums);
      add(totals, sums);
    }
    return {
      from,
      to,
      groupBy: query.groupBy,
      tenantId: tenantId ?? null,
      days,
      groups: [...groups.values()].sort((a, b) => byGroup(a.group, b.group)),
      totals,
    };
  }
}
