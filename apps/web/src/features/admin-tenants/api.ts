import { OidcClient, WebStorageStateStore } from 'oidc-client-ts';
import { ApiRequestError, apiJson } from '../../lib/api';
import { CALLBACK_PATH } from '../../lib/auth/user-manager';
import { readWebConfig } from '../../lib/web-config';

/** As `GET /api/v1/admin/tenants` lists it (docs/identity.md, "Tenants over HTTP"). */
export interface Tenant {
  tenantId: string;
  name: string;
  type: 'enterprise' | 'saas';
  endpoint: string;
  enabled: boolean;
  createdAt: string;
  userCount: number;
  clientCount: number;
  hasIdentityProvider: boolean;
}

export interface TenantPage {
  tenants: Tenant[];
  total: number;
  limit: number;
  page: number;
  hasMore: boolean;
}

/** The connection without its secret, which is write-only (docs/tenant-identity-providers.md, "Over HTTP"). */
export interface IdentityProvider {
  tenantId: string;
  tenant: string;
  issuer: string;
  clientId: string;
  scopes: string[];
  domains: string[];
  redirectUri: string;
  updatedAt: string;
}

export interface IdentityProviderInput {
  issuer: string;
  clientId: string;
  /** Absent: the stored secret stays. */
  clientSecret?: string;
  scopes?: string[];
  domains: string[];
}

export interface BrokeredSignIn {
  authorizationEndpoint: string;
  parameters: { idp_hint: string; prompt: 'login' };
}

/** `POST .../identity-provider/test`: a provider's fault is in the report, not an error of the call. */
export interface IdentityProviderReport {
  ok: boolean;
  issuer: string;
  discoveryUrl: string;
  issuerMatches: boolean | null;
  discovered: {
    authorizationEndpoint?: string;
    tokenEndpoint?: string;
    userinfoEndpoint?: string;
    jwksUri?: string;
    endSessionEndpoint?: string;
    idTokenSigningAlgorithms?: string[];
    acceptedAlgorithms?: string[];
    codeChallengeMethods?: string[];
  } | null;
  keys: { kid?: string; kty: string; alg?: string; use?: string; usable: boolean }[] | null;
  problems: { code: string; message: string }[];
  redirectUri: string;
  signIn: BrokeredSignIn | null;
  checkedAt: string;
}

export const TENANTS_KEY = ['admin', 'tenants'] as const;
export const PAGE_SIZE = 25;

const json = (method: string, body?: unknown): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json' },
  ...(body === undefined ? {} : { body: JSON.stringify(body) }),
});
const tenantPath = (tenantId: string) => `/api/v1/admin/tenants/${encodeURIComponent(tenantId)}`;

export function listTenants(token: string, search: string | undefined, page: number): Promise<TenantPage> {
  const query = new URLSearchParams({ limit: String(PAGE_SIZE), page: String(page) });
  if (search) query.set('search', search);
  return apiJson<TenantPage>(`/api/v1/admin/tenants?${query}`, token);
}

export function createTenant(
  token: string,
  tenant: { name: string; type: Tenant['type']; endpoint: string; enabled: boolean },
): Promise<Tenant> {
  return apiJson<Tenant>('/api/v1/admin/tenants', token, json('POST', tenant));
}

export function updateTenant(
  token: string,
  tenantId: string,
  change: { endpoint?: string; enabled?: boolean },
): Promise<Tenant> {
  return apiJson<Tenant>(tenantPath(tenantId), token, json('PATCH', change));
}

export function deleteTenant(token: string, tenantId: string): Promise<unknown> {
  return apiJson(tenantPath(tenantId), token, json('DELETE'));
}

/** null: the tenant has no provider (the route's 404). */
export async function getIdentityProvider(token: string, tenantId: string): Promise<IdentityProvider | null> {
  try {
    return await apiJson<IdentityProvider>(`${tenantPath(tenantId)}/identity-provider`, token);
  } catch (error) {
    if (error instanceof ApiRequestError && error.status === 404) return null;
    throw error;
  }
}

export function putIdentityProvider(
  token: string,
  tenantId: string,
  input: IdentityProviderInput,
): Promise<IdentityProvider> {
  return apiJson<IdentityProvider>(`${tenantPath(tenantId)}/identity-provider`, token, json('PUT', input));
}

export function deleteIdentityProvider(token: string, tenantId: string): Promise<unknown> {
  return apiJson(`${tenantPath(tenantId)}/identity-provider`, token, json('DELETE'));
}

export function testIdentityProvider(token: string, tenantId: string): Promise<IdentityProviderReport> {
  return apiJson<IdentityProviderReport>(`${tenantPath(tenantId)}/identity-provider/test`, token, json('POST', {}));
}

/**
 * Opens the report's brokered sign-in in a window of its own: the platform's authorization request with the web
 * app's client, redirect URI, PKCE and state (kept in sessionStorage, which a window opened this way starts with a
 * copy of), plus `idp_hint` and `prompt=login`. That window finishes at the web app's callback, signed in as the
 * tenant's user; this window keeps its own tokens (they live in memory).
 */
export async function openTestSignIn(signIn: BrokeredSignIn, locale: string): Promise<boolean> {
  const config = readWebConfig();
  const client = new OidcClient({
    authority: config.issuer,
    client_id: config.clientId,
    redirect_uri: `${window.location.origin}${CALLBACK_PATH}`,
    response_type: 'code',
    scope: config.scopes.join(' '),
    // The report names the authorization endpoint, so no discovery is fetched for it.
    metadata: { issuer: config.issuer, authorization_endpoint: signIn.authorizationEndpoint },
    stateStore: new WebStorageStateStore({ store: window.sessionStorage }),
  });
  const request = await client.createSigninRequest({
    request_type: 'si:r',
    state: { returnTo: '/' },
    prompt: signIn.parameters.prompt,
    ui_locales: locale,
    extraQueryParams: { idp_hint: signIn.parameters.idp_hint },
  });
  const opened = window.open(request.url, '_blank');
  if (!opened) return false;
  // The sign-in's window gets no handle back on the console.
  opened.opener = null;
  return true;
}
