import { ApiRequestError, apiJson } from '../../lib/api';

/** A virtual key of the gateway as `GET /api/v1/admin/api-keys` lists it (docs/gateway.md, "Keys over HTTP"). */
export interface AdminApiKey {
  keyId: string;
  name: string;
  /** `fed_...abcd`: never the key. */
  keyHint: string;
  state: 'live' | 'revoked' | 'expired';
  /** Null: every model. */
  models: string[] | null;
  rpm: number | null;
  tpm: number | null;
  dailyBudgetUsd: number | null;
  /** Null: any network the gateway allows. */
  networks: string[] | null;
  /** Null: the operator's key. */
  tenantId: string | null;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
}

export interface ApiKeyPage {
  apiKeys: AdminApiKey[];
  total: number;
  limit: number;
  page: number;
  hasMore: boolean;
}

export interface ApiKeyFilters {
  search?: string;
  state?: AdminApiKey['state'];
  tenantId?: string;
}

/** What the create form sends; the PATCH takes the same fields but `tenantId`, `null` clearing one. */
export interface ApiKeyLimits {
  name?: string;
  models?: string[] | null;
  rpm?: number | null;
  tpm?: number | null;
  dailyBudgetUsd?: number | null;
  networks?: string[] | null;
  expiresAt?: string | null;
}

export interface NewApiKey extends ApiKeyLimits {
  name: string;
  tenantId?: string;
}

export interface TenantChoice {
  tenantId: string;
  name: string;
}

export const API_KEYS_KEY = ['admin', 'api-keys'] as const;
export const PAGE_SIZE = 25;

const key = (keyId: string) => `/api/v1/admin/api-keys/${encodeURIComponent(keyId)}`;
const json = (method: string, body?: unknown): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json' },
  ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  cache: 'no-store',
});

export function listApiKeys(token: string, filters: ApiKeyFilters, page: number): Promise<ApiKeyPage> {
  const query = new URLSearchParams({ limit: String(PAGE_SIZE), page: String(page) });
  if (filters.search) query.set('search', filters.search);
  if (filters.state) query.set('state', filters.state);
  if (filters.tenantId) query.set('tenantId', filters.tenantId);
  return apiJson<ApiKeyPage>(`/api/v1/admin/api-keys?${query}`, token);
}

/** The answer carries the key itself (`apiKey`), this once: never put it in a query cache. */
export function createApiKey(token: string, body: NewApiKey): Promise<AdminApiKey & { apiKey: string }> {
  return apiJson<AdminApiKey & { apiKey: string }>('/api/v1/admin/api-keys', token, json('POST', body));
}

export function updateApiKey(token: string, keyId: string, changes: ApiKeyLimits): Promise<AdminApiKey> {
  return apiJson<AdminApiKey>(key(keyId), token, json('PATCH', changes));
}

export function revokeApiKey(token: string, keyId: string): Promise<AdminApiKey> {
  return apiJson<AdminApiKey>(`${key(keyId)}/revoke`, token, json('POST', {}));
}

/** The tenants for the tenant choices and names (the first 100, by `GET /api/v1/admin/tenants`). */
export async function listTenantChoices(token: string): Promise<TenantChoice[]> {
  const page = await apiJson<{ tenants: TenantChoice[] }>('/api/v1/admin/tenants?limit=100', token);
  return page.tenants.map(({ tenantId, name }) => ({ tenantId, name }));
}

export type KeyField = 'name' | 'models' | 'rpm' | 'tpm' | 'dailyBudgetUsd' | 'networks' | 'expiresAt' | 'tenantId';

// The API names the refused field in its message only, so the form finds it there (docs/gateway.md's 400 rows).
const FIELD_WORDS: [KeyField, RegExp][] = [
  ['name', /^name\b/],
  ['models', /^models\b|model names?/],
  ['rpm', /^rpm\b/],
  ['tpm', /^tpm\b/],
  ['dailyBudgetUsd', /dailyBudgetUsd|daily budget/],
  ['expiresAt', /expir/],
  ['tenantId', /tenant/],
  ['networks', /network|CIDR|address/i],
];

/** The form field a refusal of the API is about, or undefined (the form shows it above its buttons). */
export function keyFieldOf(error: unknown): KeyField | undefined {
  if (!(error instanceof ApiRequestError) || error.status !== 400) return undefined;
  return FIELD_WORDS.find(([, words]) => words.test(error.message))?.[0];
}
