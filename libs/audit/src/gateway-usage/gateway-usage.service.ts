import { type AccessTokenPrincipal } from '@fed/auth';
import { PLATFORM_SCOPE } from '@fed/contracts';
import { Injectable } from '@nestjs/common';
import { GatewayUsageError } from './gateway-usage.errors';
import { type GatewayUsageQuery, MAX_USAGE_DAYS } from './gateway-usage.dto';
import { type GatewayUsageDimension, GatewayUsageRepository, type GatewayUsageRows } from './gateway-usage.repository';

const DAY_MS = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const msOf = (day: string) => Date.parse(`${day}T00:00:00.000Z`);

export interface GatewayUsageReport {
  from: string;
  to: string;
  groupBy: GatewayUsageDimension;
  tenantId: string | null;
  rows: GatewayUsageRows;
}

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
    const from = query.from ?? dayOf(msOf(to) - (30 - 1) * DAY_MS);
    if (from > to) throw new GatewayUsageError('invalid_range', 'from must not be after to');
    if ((msOf(to) - msOf(from)) / DAY_MS + 1 > MAX_USAGE_DAYS)
      throw new GatewayUsageError('range_too_long', `the range is at most ${MAX_USAGE_DAYS} days`);
    const own = usageTenantOf(principal);
    const asked = query.tenantId?.toLowerCase();
    if (own !== undefined && asked !== undefined && asked !== own)
      throw new GatewayUsageError('other_tenant', "only platform:manage reads another tenant's usage");
    const tenantId = own ?? asked;
    const rows = await this.repository.read(
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
    return { from, to, groupBy: query.groupBy, tenantId: tenantId ?? null, rows };
  }
}
