import { ApiRequestError, apiJson } from '../../lib/api';

/** A client as `GET /api/v1/admin/clients` lists it (docs/client-registration.md, "The clients API"). */
export interface AdminClient {
  clientId: string;
  name: string;
  tenant: { tenantId: string; name: string } | null;
  operator: boolean;
  registration: 'operator' | 'metadata_document' | 'dynamic';
  public: boolean;
  grantTypes: string[];
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  scopes: string[];
  publicationStatus: 'Published' | 'Unpublished';
  consentRequired: boolean;
  requirePkce: boolean;
  enabled: boolean;
  /** The console signs in with it: never disabled or deleted over HTTP. */
  protected: boolean;
  serviceAccountId: string;
  secretRotatedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface ClientPage {
  clients: AdminClient[];
  total: number;
  limit: number;
  page: number;
  hasMore: boolean;
}

export interface ClientFilters {
  search?: string;
  /** The tenant's name. */
  tenant?: string;
}

export interface NewClient {
  clientId: string;
  name: string;
  grantTypes: string[];
  redirectUris?: string[];
  scopes?: string[];
  tenant?: string;
  operator?: boolean;
  public?: boolean;
  allowManagementScopes?: boolean;
}

export interface ClientChanges {
  name?: string;
  redirectUris?: string[];
  scopes?: string[];
  allowManagementScopes?: boolean;
}

/** The answers that carry a secret: shown once, never put in a query cache. */
export type ClientWithSecret = AdminClient & { clientSecret?: string };

export interface TenantChoice {
  tenantId: string;
  name: string;
}

export const CLIENTS_KEY = ['admin', 'clients'] as const;
export const PAGE_SIZE = 25;
/** The management scopes (libs/contracts' list): an application needs allowManagementScopes for one. */
export const MANAGEMENT_SCOPES: readonly string[] = [
  'sharedmemory:query',
  'users:read',
  'users:manage',
  'logs:read',
  'master:manage',
  'platform:manage',
];
export const GRANT_TYPES = ['authorization_code', 'client_credentials', 'refresh_token'] as const;

const client = (clientId: string) => `/api/v1/admin/clients/${encodeURIComponent(clientId)}`;
const json = (method: string, body?: unknown): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json' },
  ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  cache: 'no-store',
});

export function listClients(token: string, filters: ClientFilters, page: number): Promise<ClientPage> {
  const query = new URLSearchParams({ limit: String(PAGE_SIZE), page: String(page) });
  if (filters.search) query.set('search', filters.search);
  if (filters.tenant) query.set('tenant', filters.tenant);
  return apiJson<ClientPage>(`/api/v1/admin/clients?${query}`, token);
}

export function createClient(token: string, body: NewClient): Promise<ClientWithSecret> {
  return apiJson<ClientWithSecret>('/api/v1/admin/clients', token, json('POST', body));
}

export function updateClient(token: string, clientId: string, changes: ClientChanges | { enabled: boolean }) {
  return apiJson<AdminClient>(client(clientId), token, json('PATCH', changes));
}

export function rotateClientSecret(token: string, clientId: string): Promise<ClientWithSecret> {
  return apiJson<ClientWithSecret>(`${client(clientId)}/rotate-secret`, token, json('POST', {}));
}

export function deleteClient(token: string, clientId: string): Promise<unknown> {
  return apiJson(client(clientId), token, json('DELETE'));
}

/** The tenants' names for the tenant choices (the first 100, by `GET /api/v1/admin/tenants`). */
export async function listTenantChoices(token: string): Promise<TenantChoice[]> {
  const page = await apiJson<{ tenants: TenantChoice[] }>('/api/v1/admin/tenants?limit=100', token);
  return page.tenants.map(({ tenantId, name }) => ({ tenantId, name }));
}

export type ClientField = 'clientId' | 'name' | 'grantTypes' | 'redirectUris' | 'scopes' | 'tenant' | 'public';

// The API names the refused field in its message only (`error.message`), so the form finds it there: the DTO's
// field names and the registration rules' words (docs/client-registration.md's 400 rows), first match wins.
const FIELD_WORDS: [ClientField, RegExp][] = [
  ['clientId', /^clientId\b|^client_id\b|^client \S+ already exists/],
  ['grantTypes', /grantTypes|grant types|^refresh_token needs|uses authorization_code/],
  ['redirectUris', /redirectUris|redirect URI/],
  ['scopes', /scopes?\b|platform:manage|allowManagementScopes/],
  ['tenant', /tenant|operator's integration/],
  ['public', /PKCE|public\b/],
  ['name', /^name\b/],
];

/** The form field a refusal of the API is about, or undefined (the form shows it above its buttons). */
export function clientFieldOf(error: unknown): ClientField | undefined {
  if (!(error instanceof ApiRequestError) || (error.status !== 400 && error.status !== 409)) return undefined;
  return FIELD_WORDS.find(([, words]) => words.test(error.message))?.[0];
}
