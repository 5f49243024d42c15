import { type AccessTokenPrincipal } from '@fed/auth';
import { PLATFORM_SCOPE } from '@fed/contracts';
import { Injectable } from '@nestjs/common';
import { type GatewayUsageQuery } from './gateway-usage.dto';
import { GatewayUsageError } from './gateway-usage.errors';
import {
  type GatewayUsageDimension,
  GatewayUsageRepository,
  type GatewayUsageSumsRow,
} from './gateway-usage.repository';
import { DEFAULT_USAGE_DAYS, MAX_USAGE_DAYS } from './gateway-usage.rules';

const DAY_MS = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const msOf = (day: string) => Date.parse(`${day}T00:00:00.000Z`);

/** What a set of log rows adds up to; the cost exact, as a decimal with 8 places (the log's scale). */
export interface GatewayUsageSums {
  requests: number;
  errors: number;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  cachedTokens: number;
  costUsd: string;
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

function sumsOf(row: GatewayUsageSumsRow): GatewayUsageSums {
  return {
    requests: Number(row.requests),
    errors: Number(row.errors),
    inputTokens: Number(row.inputTokens),
    outputTokens: Number(row.outputTokens),
    totalTokens: Number(row.totalTokens),
    cachedTokens: Number(row.cachedTokens),
    costUsd: row.costUsd,
  };
}

// Code points, not the database's collation: the same order on every install; none last.
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
    const rows = await this.repository.usage(
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
    // Summed by PostgreSQL (one statement): no arithmetic on costs here, only the order.
    const days: GatewayUsageReport['days'] = [];
    const groups: GatewayUsageReport['groups'] = [];
    let totals: GatewayUsageSums | undefined;
    for (const row of rows) {
      if (row.level === 'day') days.push({ day: row.day, group: row.group, ...sumsOf(row) });
      else if (row.level === 'group') groups.push({ group: row.group, ...sumsOf(row) });
      else totals = sumsOf(row);
    }
    days.sort((a, b) => (a.day === b.day ? byGroup(a.group, b.group) : a.day < b.day ? -1 : 1));
    groups.sort((a, b) => byGroup(a.group, b.group));
    return {
      from,
      to,
      groupBy: query.groupBy,
      tenantId: tenantId ?? null,
      days,
      groups,
      // The empty grouping set answers a row even when nothing matched.
      totals: totals!,
    };
  }
}
