import { apiJson } from '../../lib/api';

export type UsageGrouping = 'model' | 'key' | 'user';

/** What a set of gateway log rows adds up to (docs/gateway.md, "Usage over HTTP"). */
export interface UsageFigures {
  requests: number;
  errors: number;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  cachedTokens: number;
  /** US dollars, the exact decimal (8 places) as a string. */
  costUsd: string;
}

export interface UsageDay extends UsageFigures {
  day: string;
  group: string | null;
}

export interface UsageReport {
  from: string;
  to: string;
  groupBy: UsageGrouping;
  tenantId: string | null;
  days: UsageDay[];
  groups: (UsageFigures & { group: string | null })[];
  totals: UsageFigures;
}

export interface UsageQuery {
  from: string;
  to: string;
  groupBy: UsageGrouping;
  /** The operator's filter; absent: every tenant's usage (or the reader's own tenant's). */
  tenantId?: string;
}

export interface TenantChoice {
  tenantId: string;
  name: string;
}

export const USAGE_KEY = ['admin', 'gateway-usage'] as const;

export function readUsage(token: string, query: UsageQuery): Promise<UsageReport> {
  const params = new URLSearchParams({ from: query.from, to: query.to, groupBy: query.groupBy });
  if (query.tenantId) params.set('tenantId', query.tenantId);
  return apiJson<UsageReport>(`/api/v1/admin/gateway-usage?${params}`, token);
}

/** The operator's tenant filter: the first 100 tenants (the tenants API's largest page). */
export async function listTenantChoices(token: string): Promise<TenantChoice[]> {
  const page = await apiJson<{ tenants: TenantChoice[] }>('/api/v1/admin/tenants?limit=100&page=1', token);
  return page.tenants.map(({ tenantId, name }) => ({ tenantId, name }));
}
